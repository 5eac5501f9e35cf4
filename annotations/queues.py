"""The annotation app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import Queue, TaskName

# Suggestions from a model (decision 0078): a whole collection's pre-annotation is a long job; fetching
# ahead the suggestions of one image is what an annotator is about to wait for.
PREANNOTATE_RUN = TaskName("annotations.tasks.preannotate_run")
SUGGESTIONS_FETCH = TaskName("annotations.tasks.suggestions_fetch", queue=Queue.INTERACTIVE)
