"""Every write of the annotation app, one module per subject (keyword-only arguments, atomic)."""
