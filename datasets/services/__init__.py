"""Every write of the dataset app, one module per step of an import: asking for one and choosing after
its plan (`creation`), running it (`run`), and the steps it runs (`validation`, `plan`, `writing`,
`pixels`), over what they share (`common`). An import-linter contract keeps them in that order."""
