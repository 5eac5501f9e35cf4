"""Thin DRF views, one per operation. None yet."""
