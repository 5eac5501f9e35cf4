"""The crowd API, mounted under /api/v1/."""

from django.urls import path

from crowd.api import settings, work

urlpatterns = [
    path(
        "collections/<int:collection_id>/crowd/", settings.CrowdSettingsApi.as_view(), name="crowd-settings"
    ),
    path(
        "collections/<int:collection_id>/crowd/queue/next/",
        work.CrowdQueueApi.as_view(),
        name="crowd-queue-next",
    ),
    path(
        "crowd/work/<int:work_id>/annotation/", work.WorkAnnotationApi.as_view(), name="crowd-work-annotation"
    ),
    path("crowd/work/<int:work_id>/submit/", work.WorkSubmitApi.as_view(), name="crowd-work-submit"),
    path("crowd/work/<int:work_id>/lease/", work.WorkLeaseApi.as_view(), name="crowd-work-lease"),
    path("crowd/work/<int:work_id>/file/", work.WorkFileApi.as_view(), name="crowd-work-file"),
]
