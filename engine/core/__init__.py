"""The query engine core: standard library and numpy only (an import-linter contract enforces it)."""
