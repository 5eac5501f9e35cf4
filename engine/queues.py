"""The engine app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import TaskName

FIT_STATISTICS = TaskName("engine.tasks.fit_statistics")
FIT_SHARD = TaskName("engine.tasks.fit_shard")
