"""The admin pages of job models (vtt_site.jobs.Job) follow a running job: while a row shown is queued or
running, the page reloads itself every few seconds (the web UI's refresh script), so a fit's or an
import's progress moves without the admin pressing reload (issue 20)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

REFRESH_SECONDS = 3


class FollowsRunningJobs:
    """Mix into a job model's ModelAdmin and list `following` in list_display and readonly_fields."""

    class Media:
        js = ["frontend/js/refresh.js"]  # the web UI's (frontend/static); plain, no module syntax

    @admin.display(description="")
    def following(self, obj) -> str:
        if obj is not None and obj.unfinished:
            return format_html(
                '<span data-refresh-seconds="{}" class="help">running: this page follows it</span>',
                REFRESH_SECONDS,
            )
        return ""
