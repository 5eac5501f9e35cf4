"""Synthetic marina scenes: a third held-out world for the engine's audit (benchmarks.engine_quality)."""
