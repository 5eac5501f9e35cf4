"""The built-in baselines of the leaderboard. Each takes a test through the HTTP API with the Python
client, like any vision system (demo/baselines/run.py); `manage.py run_baselines` registers, enrols and
runs them. They are the demo's code, not the platform's evaluation (decision 0031)."""
