"""The web UI: templates and static files; views call the apps' services and selectors."""
