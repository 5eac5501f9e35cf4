"""Dataset formats, imports and exports: the scene graphs that come into a collection from a file and
leave it as one (docs/annotations.md). Layered just above `annotations`, which never imports it."""
