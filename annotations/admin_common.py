"""What the admin modules of the annotation app share."""

from __future__ import annotations

from django.contrib import admin

from vtt_site.paging import EstimatedCountPaginator


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by the platform only (annotations, jobs, suggestions): shown, never added or edited."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class LargeTableAdmin(admin.ModelAdmin):
    """A changelist over a table that grows with the collections (images, objects, relationships): its
    count is estimated past a size and never taken twice (vtt_site.paging, decision 0098)."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    # Django's admin renders a row in about 1 ms: 100 rows were most of the page's time (in process on
    # 108,077 images: 114-121 ms a page with 100 rows, 46-77 ms with 50).
    list_per_page = 50
