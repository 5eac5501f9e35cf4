from django.urls import path

from truthing.api import lifecycle, quality, work

urlpatterns = [
    path("truthing/tests/", lifecycle.TestListCreateApi.as_view(), name="truthing-tests"),
    path("truthing/tests/<int:test_id>/", lifecycle.TestApi.as_view(), name="truthing-test"),
    path("truthing/tests/<int:test_id>/start/", lifecycle.TestStartApi.as_view(), name="truthing-test-start"),
    path(
        "truthing/tests/<int:test_id>/publish/",
        lifecycle.TestPublishApi.as_view(),
        name="truthing-test-publish",
    ),
    path(
        "truthing/tests/<int:test_id>/archive/",
        lifecycle.TestArchiveApi.as_view(),
        name="truthing-test-archive",
    ),
    path(
        "truthing/tests/<int:test_id>/export/", lifecycle.TestExportApi.as_view(), name="truthing-test-export"
    ),
    path("truthing/tests/<int:test_id>/audit/", lifecycle.TestAuditApi.as_view(), name="truthing-test-audit"),
    path(
        "truthing/tests/<int:test_id>/pools/",
        lifecycle.TestPoolGrowApi.as_view(),
        name="truthing-test-pool-grow",
    ),
    path("truthing/queue/next/", work.QueueNextApi.as_view(), name="truthing-queue-next"),
    path("truthing/streams/<int:stream_id>/", work.StreamApi.as_view(), name="truthing-stream"),
    path(
        "truthing/streams/<int:stream_id>/answer/",
        work.StreamAnswerApi.as_view(),
        name="truthing-stream-answer",
    ),
    path("truthing/streams/<int:stream_id>/undo/", work.StreamUndoApi.as_view(), name="truthing-stream-undo"),
    path(
        "truthing/streams/<int:stream_id>/leave/", work.StreamLeaveApi.as_view(), name="truthing-stream-leave"
    ),
    path("truthing/checks/<int:check_id>/", work.CheckApi.as_view(), name="truthing-check"),
    path(
        "truthing/checks/<int:check_id>/answer/", work.CheckAnswerApi.as_view(), name="truthing-check-answer"
    ),
    path("truthing/checks/<int:check_id>/undo/", work.CheckUndoApi.as_view(), name="truthing-check-undo"),
    path("truthing/checks/<int:check_id>/leave/", work.CheckLeaveApi.as_view(), name="truthing-check-leave"),
    path("truthing/disagreements/", quality.DisagreementListApi.as_view(), name="truthing-disagreements"),
    path(
        "truthing/disagreements/<int:disagreement_id>/decide/",
        quality.DisagreementDecideApi.as_view(),
        name="truthing-disagreement-decide",
    ),
    path("truthing/operators/", quality.OperatorStatisticsApi.as_view(), name="truthing-operators"),
]
