"""The crowd API, mounted under /api/v1/."""

from django.urls import path

from crowd.api import quality, review, settings, work

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
    path("collections/<int:collection_id>/crowd/merges/", review.MergeListApi.as_view(), name="crowd-merges"),
    path("collections/<int:collection_id>/crowd/summary/", review.SummaryApi.as_view(), name="crowd-summary"),
    path(
        "collections/<int:collection_id>/crowd/review/next/",
        review.ReviewNextApi.as_view(),
        name="crowd-review-next",
    ),
    path("collections/<int:collection_id>/crowd/pauses/", review.PauseListApi.as_view(), name="crowd-pauses"),
    path(
        "collections/<int:collection_id>/crowd/pauses/<int:user_id>/",
        review.PauseLiftApi.as_view(),
        name="crowd-pause",
    ),
    path("crowd/images/<int:image_id>/merge/", review.MergeApi.as_view(), name="crowd-merge"),
    path(
        "crowd/images/<int:image_id>/merge/accept/",
        review.MergeAcceptApi.as_view(),
        name="crowd-merge-accept",
    ),
    path(
        "collections/<int:collection_id>/crowd/quality/", quality.QualityApi.as_view(), name="crowd-quality"
    ),
    path(
        "collections/<int:collection_id>/crowd/copies/",
        quality.CopiesExportApi.as_view(),
        name="crowd-copies",
    ),
    path("crowd/images/<int:image_id>/gold/", review.GoldApi.as_view(), name="crowd-gold"),
]
