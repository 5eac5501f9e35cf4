"""The evaluation app's tasks (vtt_site.queueing)."""

from vtt_site.queueing import Queue, TaskName

SCORE_SESSION = TaskName("evaluation.tasks.score_session")
RANKING_CHECK = TaskName("evaluation.tasks.ranking_check")
# Sessions whose test's deadline passed close on their own, even when their system never comes back
# (evaluation.services.sessions.sessions_expire_due): they are scored and join the leaderboard.
SESSIONS_EXPIRE_DUE = TaskName(
    "evaluation.tasks.sessions_expire_due",
    Queue.INTERACTIVE,
    beat="sessions-expire",
    every="EVALUATION_DEADLINE_SWEEP_SECONDS",
)
# Ended sessions whose scoring task was lost, or scored by an older scoring version
# (evaluation.services.scores.scores_due_queue).
SCORES_DUE_QUEUE = TaskName(
    "evaluation.tasks.scores_due_queue",
    Queue.INTERACTIVE,
    beat="sessions-score-missing",
    every="EVALUATION_DEADLINE_SWEEP_SECONDS",
)
# Frozen tests without a current ranking check (evaluation.services.degradation).
RANKING_CHECKS_DUE_QUEUE = TaskName(
    "evaluation.tasks.ranking_checks_due_queue",
    Queue.INTERACTIVE,
    beat="ranking-checks",
    every="EVALUATION_DEADLINE_SWEEP_SECONDS",
)
