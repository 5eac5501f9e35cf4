"""Reads of the evaluation app: `access` (who may see which system and session), `plans` (the questions
a session is asked), `scores` (the stored answers and the scores they give), `leaderboard` (what anyone
may read of systems' results)."""
