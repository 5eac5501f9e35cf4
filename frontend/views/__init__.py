"""Pages of the web UI, one module per subject. Each view reads through the apps' selectors and writes
through their services; the annotator's and reviewer's pages are shells whose JavaScript then talks to
the REST API with the session cookie."""
