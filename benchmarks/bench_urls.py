"""The platform's URLs plus `/bench/bare/<session_id>/`: a DRF view that does only what answering
must do in the database (lock the session row, insert the answer, update the session), without token
authentication, role checks, throttling, the test plan or scoring. It is the ceiling the real endpoint
is measured against."""

from django.db import transaction
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.models import Answer, Session
from vtt_site.urls import handler400, handler403, handler404, handler500
from vtt_site.urls import urlpatterns as site_urls

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


class BareAnswer(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    def post(self, request, session_id: int):
        with transaction.atomic():
            session = Session.objects.select_for_update().get(pk=session_id)
            Answer.objects.create(
                session=session, ordinal=session.answered, step_id=session.answered, answer=True, correct=True
            )
            session.answered += 1
            session.save(update_fields=["answered"])
        return Response({"answered": session.answered})


urlpatterns = [path("bench/bare/<int:session_id>/", BareAnswer.as_view()), *site_urls]
