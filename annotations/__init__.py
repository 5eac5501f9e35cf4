"""Annotation: vocabularies, image collections, boxes, attributes, relationships, queues, import/export."""
