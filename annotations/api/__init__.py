"""Thin DRF views of the annotation app, one module per subject: parse, call a service or selector,
serialize."""
