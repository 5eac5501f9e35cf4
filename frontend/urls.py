from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from frontend.views import (
    account,
    bucket,
    collections,
    crowd,
    crowd_setup,
    docs,
    evaluation,
    home,
    truthing,
    work,
)

app_name = "frontend"

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="frontend/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="frontend/password_change.html", success_url=reverse_lazy("frontend:password-done")
        ),
        name="password-change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="frontend/password_done.html"),
        name="password-done",
    ),
    path("tokens/", account.tokens, name="tokens"),
    path("docs/", docs.index, name="docs"),
    path("docs/<path:page>/", docs.doc, name="doc"),
    path("tokens/<int:token_id>/revoke/", account.token_revoke, name="token-revoke"),
    # Collections: progress, images, upload, import, export
    path("collections/<int:collection_id>/", collections.collection_detail, name="collection"),
    path("collections/<int:collection_id>/upload/", collections.upload, name="upload"),
    path("collections/<int:collection_id>/import/", collections.import_start, name="import-start"),
    path(
        "collections/<int:collection_id>/model-server/", collections.model_backend_save, name="model-backend"
    ),
    path(
        "collections/<int:collection_id>/model-server/check/",
        collections.model_backend_check_view,
        name="model-backend-check",
    ),
    path(
        "collections/<int:collection_id>/model-server/preannotate/",
        collections.model_backend_preannotate,
        name="model-backend-preannotate",
    ),
    path("collections/<int:collection_id>/bucket-source/", bucket.bucket_source_save, name="bucket-source"),
    path(
        "collections/<int:collection_id>/bucket-source/sync/",
        bucket.bucket_source_sync_view,
        name="bucket-source-sync",
    ),
    path("imports/<int:job_id>/", collections.import_detail, name="import"),
    path("imports/<int:job_id>/confirm/", collections.import_go_on, name="import-confirm"),
    path("imports/<int:job_id>/cancel/", collections.import_stop, name="import-cancel"),
    # The queues and the pages to work on an image
    path("collections/<int:collection_id>/annotate/next/", work.annotate_next, name="annotate-next"),
    path("collections/<int:collection_id>/review/next/", work.review_next_view, name="review-next"),
    path("images/<int:image_id>/", work.image_view, name="image"),
    path("images/<int:image_id>/annotate/", work.annotate, name="annotate"),
    path("images/<int:image_id>/review/", work.review, name="review"),
    # Crowds: several annotators per image, the review of merges, quality
    path("collections/<int:collection_id>/crowd/next/", crowd.crowd_next, name="crowd-next"),
    path(
        "collections/<int:collection_id>/crowd/review/next/",
        crowd.crowd_review_next,
        name="crowd-review-next",
    ),
    path(
        "collections/<int:collection_id>/crowd/settings/",
        crowd_setup.crowd_settings_save,
        name="crowd-settings",
    ),
    path(
        "collections/<int:collection_id>/crowd/pauses/<int:user_id>/lift/",
        crowd_setup.crowd_pause_lift,
        name="crowd-pause-lift",
    ),
    path("collections/<int:collection_id>/crowd/quality/", crowd_setup.crowd_quality, name="crowd-quality"),
    path("crowd/work/<int:work_id>/", crowd.crowd_work, name="crowd-work"),
    path("crowd/review/<int:image_id>/", crowd.crowd_review, name="crowd-review"),
    path("crowd/review/<int:image_id>/edit/", crowd.crowd_review_edit, name="crowd-review-edit"),
    path("crowd/review/<int:image_id>/decide/", crowd.crowd_review_decide, name="crowd-review-decide"),
    # Truthing: the operator's work, adjudication, tests and their cards, operators' statistics
    path("truthing/", truthing.work_home, name="truthing"),
    path("truthing/next/", truthing.work_next, name="truthing-next"),
    path("truthing/streams/<int:stream_id>/", truthing.stream_work, name="truthing-stream"),
    path("truthing/checks/<int:check_id>/", truthing.check_work, name="truthing-check"),
    path("truthing/disagreements/", truthing.disagreements, name="disagreements"),
    path(
        "truthing/disagreements/<int:disagreement_id>/decide/",
        truthing.disagreement_decide,
        name="disagreement-decide",
    ),
    path("truthing/operators/", truthing.operator_statistics, name="operators"),
    path("tests/", truthing.list_tests, name="tests"),
    path("tests/new/", truthing.new_test, name="test-new"),
    path("tests/<int:test_id>/", truthing.show_test, name="test"),
    path("tests/<int:test_id>/<slug:action>/", truthing.change_test, name="test-transition"),
    # Vision systems and leaderboards
    path("systems/", evaluation.systems, name="systems"),
    path("systems/<int:system_id>/", evaluation.system_detail, name="system"),
    path(
        "systems/<int:system_id>/sessions/<int:session_id>/images/<int:test_image_id>/",
        evaluation.system_session_image,
        name="system-session-image",
    ),
    path("leaderboards/", evaluation.leaderboards, name="leaderboards"),
    path("leaderboards/<int:test_id>/", evaluation.leaderboard, name="leaderboard"),
]
