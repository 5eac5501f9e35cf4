"""Every read of this app that is more than a `get`. None yet."""
