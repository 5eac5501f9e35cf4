"""A model's suggestions for an image: read them, reject one, take a rejection back (decision 0078).

Accepting one is saving the annotation with an object that names it (`objects[i].suggestion`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import bbox_field
from annotations.models import PredictionStatus
from annotations.selectors.images import access_image
from annotations.selectors.suggestions import OFF, READY, UNAVAILABLE, access_prediction, image_suggestions
from annotations.selectors.suggestions import suggestion_item as item_of
from annotations.services.suggestions import suggestion_reject, suggestion_restore
from vtt_site.api.schema import ErrorSerializer


class SuggestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    type = serializers.CharField()
    bbox = bbox_field()
    attributes = serializers.ListField(child=serializers.CharField())
    score = serializers.FloatField(allow_null=True)
    status = serializers.ChoiceField(choices=PredictionStatus.choices)
    model_version = serializers.CharField()


class ImageSuggestionsSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=[READY, UNAVAILABLE, OFF],
        help_text="off: the collection has no model server (or it is switched off); unavailable: see note.",
    )
    note = serializers.CharField(help_text="Why suggestions are unavailable, for a person to read.")
    model_version = serializers.CharField()
    suggestions = SuggestionSerializer(many=True)


class ImageSuggestionsApi(APIView):
    operation = "suggestion.list"

    @extend_schema(responses=ImageSuggestionsSerializer, summary="A model's suggestions for the image")
    def get(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        return Response(ImageSuggestionsSerializer(image_suggestions(image=image)).data)


class _SuggestionDecisionApi(APIView):
    """A decision on one suggestion by the holder of its image's annotation lease: `decide` says which."""

    decide: Any  # the service, a staticmethod of each view

    def post(self, request, suggestion_id: int):
        prediction = access_prediction(
            user=request.user, prediction_id=suggestion_id, operation=request.operation
        )
        return Response(
            SuggestionSerializer(item_of(self.decide(prediction=prediction, user=request.user))).data
        )


class SuggestionRejectApi(_SuggestionDecisionApi):
    operation = "suggestion.reject"
    decide = staticmethod(suggestion_reject)

    @extend_schema(
        request=None,
        responses={200: SuggestionSerializer, 409: ErrorSerializer},
        summary="Reject a suggestion (you must hold its image's annotation lease; twice changes nothing)",
        description="A suggestion a box of the saved annotation comes from is refused (409): delete the "
        "box and save instead.",
    )
    def post(self, request, suggestion_id: int):
        return super().post(request, suggestion_id)


class SuggestionRestoreApi(_SuggestionDecisionApi):
    operation = "suggestion.restore"
    decide = staticmethod(suggestion_restore)

    @extend_schema(
        request=None,
        responses={200: SuggestionSerializer, 409: ErrorSerializer},
        summary="Take a rejection back: the suggestion is pending again (you must hold the image's lease)",
    )
    def post(self, request, suggestion_id: int):
        return super().post(request, suggestion_id)
