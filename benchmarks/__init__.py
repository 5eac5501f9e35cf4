"""Benchmarks: scripts that measure speed, scale and test quality and write docs/benchmarks.md.

They are not tests: they report numbers. Run them with `python -m benchmarks.<name>`.
"""
