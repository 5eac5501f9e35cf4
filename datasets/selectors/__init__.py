"""Every read of the dataset app that is more than a `get`: import jobs, scoped like their collection, and exports."""
