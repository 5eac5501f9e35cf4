"""The annotation app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import TaskName

IMPORT_RUN = TaskName("annotations.tasks.import_run")
