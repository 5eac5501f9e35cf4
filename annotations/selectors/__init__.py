"""Every read of the annotation app that is more than a `get`, one module per subject."""
