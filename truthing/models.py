"""Data and invariants only. No models yet: they come with this app's feature issue."""
