"""Evaluation API: vision systems, sessions (the test-taking contract), scores and leaderboards."""
