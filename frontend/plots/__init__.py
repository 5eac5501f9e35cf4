"""The web UI's plots, SVG written on the server: `card` (the test card), `leaderboard` (a test's
leaderboard), on the helpers of `svg`."""
