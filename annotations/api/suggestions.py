"""Suggestions from a model (decision 0078): a collection's model server, its check, a pre-annotation
job, an image's suggestions for the annotator's page, and the annotator's rejections (accepting one is
saving the annotation with an object that names it: `objects[i].suggestion`). The credential is
write-only: a response says only whether one is set."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS, UserRefSerializer, bbox_field
from annotations.models import BackendAuth, ModelBackend, PredictionStatus
from annotations.selectors.collections import access_collection
from annotations.selectors.suggestions import (
    access_image_suggestions,
    access_model_backend,
    access_preannotation,
    access_prediction,
    secret_problem,
    suggestion_item,
)
from annotations.services.preannotation import preannotation_create
from annotations.services.suggestion_check import model_backend_check
from annotations.services.suggestion_decisions import suggestion_reject, suggestion_restore
from annotations.services.suggestions import model_backend_clear, model_backend_set, suggestions_for_page
from vtt_site.api.schema import ErrorSerializer


class ModelBackendSerializer(serializers.Serializer):
    collection = serializers.IntegerField(source="collection_id")
    url = serializers.CharField()
    auth = serializers.CharField(help_text="none, basic or header.")
    username = serializers.CharField(help_text="For basic authentication.")
    header_name = serializers.CharField(help_text="For header authentication.")
    secret_set = serializers.SerializerMethodField(help_text="Whether a credential is stored (never shown).")
    secret_problem = serializers.SerializerMethodField(
        help_text="Why the stored credential cannot be used (enter it again); empty when it can."
    )
    enabled = serializers.BooleanField()
    model_version = serializers.CharField(help_text="What the server said at its last check (/setup).")
    checked_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField(help_text="What went wrong at the last contact; empty: it went well.")
    updated_by = UserRefSerializer(allow_null=True)
    updated_at = serializers.DateTimeField()

    def get_secret_set(self, backend: ModelBackend) -> bool:
        return bool(backend.secret)

    def get_secret_problem(self, backend: ModelBackend) -> str:
        return secret_problem(backend)


class ModelBackendApi(APIView):
    operations = {
        "GET": "suggestions.backend.read",
        "PUT": "suggestions.backend.set",
        "DELETE": "suggestions.backend.clear",
    }
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="ModelBackendSet")
    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(max_length=500, help_text="The backend's base URL (http or https).")
        auth = serializers.ChoiceField(choices=BackendAuth.choices, default=BackendAuth.NONE)
        username = serializers.CharField(required=False, default="", allow_blank=True, max_length=200)
        header_name = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)
        secret = serializers.CharField(
            required=False,
            allow_blank=True,
            trim_whitespace=False,
            write_only=True,
            max_length=2000,
            help_text="The password or the header's value. Left out: the stored one is kept; empty: removed.",
        )
        enabled = serializers.BooleanField(default=True)

    @extend_schema(responses={200: ModelBackendSerializer, 404: ErrorSerializer}, summary="The model server")
    def get(self, request, collection_id: int):
        backend = access_model_backend(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return Response(ModelBackendSerializer(backend).data)

    @extend_schema(
        request=InputSerializer,
        responses={200: ModelBackendSerializer, 400: ErrorSerializer},
        summary="Connect the collection to a model server (Label Studio ML backend), or change it",
    )
    def put(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        backend = model_backend_set(collection=collection, user=request.user, **data.validated_data)
        return Response(ModelBackendSerializer(backend).data)

    @extend_schema(responses={204: None, 404: ErrorSerializer}, summary="Disconnect the model server")
    def delete(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        model_backend_clear(collection=collection)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ModelBackendCheckApi(APIView):
    operation = "suggestions.backend.check"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={200: ModelBackendSerializer, 404: ErrorSerializer},
        summary="Check the model server (/health, then /setup): its model version or what went wrong",
    )
    def post(self, request, collection_id: int):
        backend = access_model_backend(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return Response(ModelBackendSerializer(model_backend_check(backend=backend)).data)


class PreannotationFailureSerializer(serializers.Serializer):
    image = serializers.IntegerField()
    name = serializers.CharField()
    reason = serializers.CharField()


class PreannotationJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collection = serializers.IntegerField(source="collection_id")
    status = serializers.CharField(help_text="queued, running, done or failed.")
    progress = serializers.FloatField(help_text="From 0 to 1: the share of the images asked.")
    message = serializers.CharField(help_text="Why the job failed as a whole.")
    images_total = serializers.IntegerField(help_text="Images with pixels still to annotate.")
    images_done = serializers.IntegerField()
    images_failed = serializers.IntegerField()
    boxes = serializers.IntegerField(help_text="Suggestions written.")
    regions_refused = serializers.IntegerField(help_text="Regions of the answers refused.")
    failures = PreannotationFailureSerializer(many=True, help_text="Each image that failed, and why.")
    created_by = UserRefSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class PreannotationCreateApi(APIView):
    operation = "suggestions.preannotate"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={202: PreannotationJobSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
        summary="Ask the model server about every image still to annotate (runs in the background)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        job = preannotation_create(collection=collection, user=request.user)
        return Response(PreannotationJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class PreannotationDetailApi(APIView):
    operation = "suggestions.preannotate.read"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(responses=PreannotationJobSerializer, summary="A pre-annotation's progress and failures")
    def get(self, request, job_id: int):
        job = access_preannotation(user=request.user, job_id=job_id, operation=request.operation)
        return Response(PreannotationJobSerializer(job).data)


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
        choices=["ready", "unavailable", "off"],
        help_text="ready; unavailable (the model server failed: see note); off (no model server, or it is "
        "switched off).",
    )
    note = serializers.CharField(help_text="Why suggestions are unavailable, for a person; else empty.")
    model_version = serializers.CharField()
    suggestions = SuggestionSerializer(
        many=True, help_text="Best score first; decided ones too (the page offers to take a rejection back)."
    )


class ImageSuggestionsApi(APIView):
    operation = "suggestions.read"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        responses={200: ImageSuggestionsSerializer, 409: ErrorSerializer},
        summary="A model's suggestions for the image (fetched within a few seconds when none is stored)",
    )
    def get(self, request, image_id: int):
        image = access_image_suggestions(user=request.user, image_id=image_id, operation=request.operation)
        page = suggestions_for_page(image=image)
        answer = {
            "state": page.state,
            "note": page.note,
            "model_version": page.model_version,
            "suggestions": [suggestion_item(p) for p in page.predictions],
        }
        return Response(ImageSuggestionsSerializer(answer).data)


class _SuggestionDecisionApi(APIView):
    """A decision on one suggestion by the holder of its image's annotation lease: `decide` says which."""

    decide: Any  # the service, a staticmethod of each view

    def post(self, request, suggestion_id: int):
        prediction = access_prediction(
            user=request.user, prediction_id=suggestion_id, operation=request.operation
        )
        return Response(
            SuggestionSerializer(suggestion_item(self.decide(prediction=prediction, user=request.user))).data
        )


class SuggestionRejectApi(_SuggestionDecisionApi):
    operation = "suggestions.reject"
    error_codes = ANNOTATION_ERRORS
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
    operation = "suggestions.restore"
    error_codes = ANNOTATION_ERRORS
    decide = staticmethod(suggestion_restore)

    @extend_schema(
        request=None,
        responses={200: SuggestionSerializer, 409: ErrorSerializer},
        summary="Take a rejection back: the suggestion is pending again (you must hold the image's lease)",
    )
    def post(self, request, suggestion_id: int):
        return super().post(request, suggestion_id)
