"""Admin registrations of this app's models. None yet."""
