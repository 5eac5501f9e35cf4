"""The dataset app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import TaskName

IMPORT_RUN = TaskName("datasets.tasks.import_run")
