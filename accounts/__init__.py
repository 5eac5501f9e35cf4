"""Accounts: roles (Django groups), what each role may do, and hashed API tokens."""
