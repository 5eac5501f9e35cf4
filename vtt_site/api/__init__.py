"""API conventions shared by every app: the error shape, pagination, serializer helpers."""
