"""Every write of this app (keyword-only arguments, `@transaction.atomic`). None yet."""
