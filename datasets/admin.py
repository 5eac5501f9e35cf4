"""The admin of import jobs: read-only, as every job's (a job is started and run by its service)."""

from __future__ import annotations

from django.contrib import admin

from annotations.admin_common import ReadOnlyAdmin
from datasets.models import ImportJob
from vtt_site.admin_jobs import FollowsRunningJobs


@admin.register(ImportJob)
class ImportJobAdmin(FollowsRunningJobs, ReadOnlyAdmin):
    list_display = [
        "id",
        "collection",
        "format",
        "status",
        "lines_done",
        "lines_total",
        "following",
        "attempts",
        "created_by",
        "created_at",
    ]
    list_filter = ["status", "format"]
    search_fields = ["original_name", "collection__name"]
    list_select_related = ["collection", "created_by"]
