"""The site's own tasks (vtt_site.queueing): the job sweeper, sent by the beat."""

from vtt_site.queueing import Queue, TaskName

# Queue again the jobs that lost their worker or never reached the broker (vtt_site.jobs).
JOBS_SWEEP = TaskName(
    "vtt_site.tasks.jobs_sweep", Queue.INTERACTIVE, beat="jobs-sweep", every="JOB_SWEEP_SECONDS"
)
