"""The crowd app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import TaskName

# The estimate of every annotator's reliability in a collection, over its merged images: a long job.
RELIABILITY_REFRESH = TaskName("crowd.tasks.reliability_refresh")
