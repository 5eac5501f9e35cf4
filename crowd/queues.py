"""The crowd app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import Queue, TaskName

# The estimate of every annotator's reliability in a collection, over its merged images: a long job.
RELIABILITY_REFRESH = TaskName("crowd.tasks.reliability_refresh")
# A submitted copy of a gold image scored against the gold answer, and the pause rule applied: after the
# submit's commit, so that a submit on gold does what any other does (decision 0091). Short: an annotator
# below the threshold is paused before their next image.
GOLD_SCORE = TaskName("crowd.tasks.gold_score", Queue.INTERACTIVE)
