"""The query engine: `engine.core` is plain Python + numpy; the rest of this package is its Django app.

Importing this package must not import Django, so that `vtt-engine` and `engine.core` run without it.
"""
