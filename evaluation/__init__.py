"""Evaluation: vision systems taking finished tests through the REST API, scores and the leaderboard.

The features arrive with their own issue; the rooms are here so the layout is the same in every app.
"""
