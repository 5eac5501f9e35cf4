"""The truthing app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import Queue, TaskName

# The next question of a stream: an operator waits for it.
STREAM_PROPOSE = TaskName("truthing.tasks.stream_propose", Queue.INTERACTIVE)
AUTOMATIC_TRUTHING_RUN = TaskName("truthing.tasks.automatic_truthing_run")
AUDIT_RUN = TaskName("truthing.tasks.audit_run")
# A session's fresh streams: its vision system waits for them.
DEAL_RUN = TaskName("truthing.tasks.deal_run", Queue.DEALS)
# A helper of a deal's run: more dealers for the same session's streams (truthing.published.dealing).
DEAL_HELP = TaskName("truthing.tasks.deal_help", Queue.DEALS)
# Streams waiting for a proposal whose task was lost (truthing.services.proposals.streams_sweep).
STREAMS_SWEEP = TaskName(
    "truthing.tasks.streams_sweep", Queue.INTERACTIVE, beat="streams-sweep", every="JOB_SWEEP_SECONDS"
)
