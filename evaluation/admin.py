"""Admin: vision systems, sessions (void one with a reason), deadlines. Answers are read-only."""

from django.contrib import admin

from evaluation.models import Answer, RankingCheck, Score, Session, TestSchedule, VisionSystem
from evaluation.services.sessions import session_void


@admin.register(VisionSystem)
class VisionSystemAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "shown", "public", "baseline", "created_at")
    list_filter = ("public", "shown")
    search_fields = ("name", "owner__username")


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "system",
        "test",
        "practice",
        "state",
        "answered",
        "correct",
        "started_at",
        "ended_at",
    )
    list_filter = ("state", "practice")
    search_fields = ("system__name", "system__owner__username", "test__name")
    readonly_fields = (
        "system",
        "test",
        "practice",
        "answered",
        "total",
        "correct",
        "started_at",
        "ended_at",
        "voided_by",
        "voided_at",
    )
    fields = (*readonly_fields, "state", "void_reason")

    def get_readonly_fields(self, request, obj=None):
        return (*self.readonly_fields, "state")

    def has_add_permission(self, request) -> bool:
        return False  # a session is made by a system's enrolment (its deal, its deadline), never by hand

    def save_model(self, request, obj, form, change):
        """Writing a reason voids the session (through the service); nothing else is edited here."""
        if change and obj.void_reason.strip() and obj.state != "voided":
            session_void(session_id=obj.pk, by=request.user, reason=obj.void_reason)


@admin.register(TestSchedule)
class TestScheduleAdmin(admin.ModelAdmin):
    list_display = ("test", "deadline")
    search_fields = ("test__name",)


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ("session", "ordinal", "answer", "p_yes", "correct", "answered_at")
    search_fields = ("session__system__name",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("session", "accuracy", "computed_at")
    search_fields = ("session__system__name",)
    readonly_fields = ("session", "accuracy", "data", "computed_at")

    def has_add_permission(self, request) -> bool:
        return False  # scores are computed from a session's answers (evaluation.services.scores)


@admin.register(RankingCheck)
class RankingCheckAdmin(admin.ModelAdmin):
    """Read-only: a check is made by the beat and shown on the test's card."""

    list_display = ("test", "status", "version", "attempts", "message", "finished_at")
    list_filter = ("status",)
    search_fields = ("test__name", "message")
    list_select_related = ("test",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
