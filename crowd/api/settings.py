"""A collection's crowd settings: read them, change them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.selectors.collections import access_collection
from crowd.api.common import CROWD_ERRORS
from crowd.models import OVERLAP_MAX
from crowd.selectors import crowd_settings_of
from crowd.services.settings import crowd_settings_update
from vtt_site.api.schema import ErrorSerializer


class CrowdSettingsSerializer(serializers.Serializer):
    overlap = serializers.IntegerField(
        help_text=f"Annotators per image, 1 to {OVERLAP_MAX}; 1 is one annotator and a reviewer."
    )
    iou_threshold = serializers.FloatField(help_text="Two boxes of one type match above this IoU.")
    agreement_threshold = serializers.FloatField(
        help_text="Below this box F1 between annotators, a reviewer decides."
    )
    auto_accept = serializers.BooleanField(
        help_text="At or above the threshold the merge is accepted unreviewed."
    )
    gold_rate = serializers.FloatField(help_text="The share of hand-outs that are gold images.")
    pause_threshold = serializers.FloatField(help_text="Mean gold box F1 below which an annotator is paused.")
    min_gold = serializers.IntegerField(help_text="Gold images done before the pause rule applies.")


class CrowdSettingsApi(APIView):
    operations = {"GET": "crowd.settings.read", "PATCH": "crowd.settings.update"}
    error_codes = CROWD_ERRORS

    @extend_schema(responses=CrowdSettingsSerializer, summary="The collection's crowd settings")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return Response(CrowdSettingsSerializer(crowd_settings_of(collection)).data)

    @extend_schema(
        request=CrowdSettingsSerializer(partial=True),
        responses={200: CrowdSettingsSerializer, 409: ErrorSerializer},
        summary="Change some of the collection's crowd settings",
        description="Values out of range are refused together (400) and nothing changes. The overlap cannot "
        "change while images are part-way through annotation or review (409 `overlap_in_progress`).",
    )
    def patch(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        # The service checks the values (ranges, whole numbers) so that every refusal reads the same.
        values = request.data if isinstance(request.data, dict) else {}
        settings = crowd_settings_update(collection=collection, values=dict(values))
        return Response(CrowdSettingsSerializer(settings).data)
