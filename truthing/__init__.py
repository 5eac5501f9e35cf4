"""Truthing: tests under construction on test images (streams, steps, operator queues, automatic truthing).

The features arrive with their own issue; the rooms are here so the layout is the same in every app.
"""
