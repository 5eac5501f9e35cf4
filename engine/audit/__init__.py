"""The independent audit of a question engine: a blind guesser that never sees pixels.

Django-free, like `engine.core`, but not part of it: it needs scikit-learn, and `engine.core` imports
only the standard library and numpy (docs/decisions/0012-audit-package.md). The Celery task that audits
a test calls `audit_streams` with the test's truthed streams and streams generated on the training
images by `training_streams`.
"""
