from django.urls import path

from evaluation.api import views

urlpatterns = [
    path("systems/", views.SystemListCreateApi.as_view(), name="evaluation-systems"),
    path("systems/<int:system_id>/", views.SystemApi.as_view(), name="evaluation-system"),
    path(
        "systems/<int:system_id>/scores/",
        views.SystemScoresApi.as_view(),
        name="evaluation-system-scores",
    ),
    path(
        "systems/<int:system_id>/tokens/",
        views.SystemTokenCreateApi.as_view(),
        name="evaluation-system-tokens",
    ),
    path("tests/", views.TestListApi.as_view(), name="evaluation-tests"),
    path("tests/<int:test_id>/sessions/", views.EnrolApi.as_view(), name="evaluation-enrol"),
    path(
        "tests/<int:test_id>/leaderboard/",
        views.LeaderboardApi.as_view(),
        name="evaluation-leaderboard",
    ),
    path("sessions/", views.SessionListApi.as_view(), name="evaluation-sessions"),
    path("sessions/<int:session_id>/", views.SessionApi.as_view(), name="evaluation-session"),
    path(
        "sessions/<int:session_id>/question/",
        views.QuestionApi.as_view(),
        name="evaluation-session-question",
    ),
    path(
        "sessions/<int:session_id>/answers/",
        views.AnswerApi.as_view(),
        name="evaluation-session-answer",
    ),
    path(
        "sessions/<int:session_id>/images/<int:image_id>/",
        views.SessionImageApi.as_view(),
        name="evaluation-session-image",
    ),
    path(
        "sessions/<int:session_id>/score/",
        views.ScoreApi.as_view(),
        name="evaluation-session-score",
    ),
    path(
        "sessions/<int:session_id>/results/",
        views.ResultsApi.as_view(),
        name="evaluation-session-results",
    ),
    path("sessions/<int:session_id>/void/", views.VoidApi.as_view(), name="evaluation-session-void"),
]
