"""Scene graphs of synthetic parking lots: a second vocabulary, made up, with its own generator."""
