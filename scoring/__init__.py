"""The scoring core: question kinds, proportions and their intervals, paired tests, and a session's
scores. Plain Python: no Django, no database (an import-linter contract says so), so the engine's audit,
the truthing card and the evaluation app all count the same way, and a change to how a session is
scored is made, tested and versioned in one place (`scores.SCORING_VERSION`)."""
