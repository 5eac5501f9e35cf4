"""The annotation and review queues: take the next image, give it back, decide on a review."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS, ImageSerializer
from annotations.selectors.collections import access_collection
from annotations.selectors.images import access_image
from annotations.services.queues import (
    ACCEPT,
    DECISIONS,
    SEND_BACK,
    annotation_next,
    image_leave,
    review_decide,
    review_next,
)
from vtt_site.api.schema import ErrorSerializer


class LeaseSerializer(serializers.Serializer):
    image = ImageSerializer()
    lease_expires_at = serializers.DateTimeField(help_text="Save, submit or decide before then.")


def _lease_response(image) -> Response:
    if image is None:
        return Response(status=status.HTTP_204_NO_CONTENT)
    return Response(LeaseSerializer({"image": image, "lease_expires_at": image.lease_expires_at}).data)


# 409: a crowd collection's images are handed out by the crowd's own queues (annotations.routing).
NEXT_RESPONSES = {
    200: LeaseSerializer,
    204: OpenApiResponse(description="Nothing is waiting."),
    409: ErrorSerializer,
}


class AnnotationQueueApi(APIView):
    operation = "queue.annotation.next"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses=NEXT_RESPONSES,
        summary="Take the next image to annotate",
        description="The image you already hold, else one a reviewer sent back to you, else a free one. "
        "Nobody else gets it until your lease expires.",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return _lease_response(annotation_next(collection=collection, user=request.user))


class ReviewQueueApi(APIView):
    operation = "queue.review.next"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses=NEXT_RESPONSES,
        summary="Take the next image to review (never one you annotated)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return _lease_response(review_next(collection=collection, user=request.user))


class LeaseReleaseApi(APIView):
    operation = "queue.release"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={204: None, 409: ErrorSerializer},
        summary="Give an image you hold back to its queue",
    )
    def delete(self, request, image_id: int):
        image_leave(
            image=access_image(user=request.user, image_id=image_id, operation=request.operation),
            user=request.user,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReviewDecideApi(APIView):
    operation = "review.decide"
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="ReviewDecision")
    class InputSerializer(serializers.Serializer):
        decision = serializers.ChoiceField(choices=DECISIONS)
        comment = serializers.CharField(
            required=False, allow_blank=True, default="", help_text="Required when sending back."
        )
        object = serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=16,
            source="object_id",
            help_text='The box the comment is about (an object id of the annotation, "o3"); empty: the image.',
        )

    @extend_schema(
        # The rule the serializer alone cannot show: sending back needs a comment.
        request={
            "application/json": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "decision": {"type": "string", "enum": [ACCEPT]},
                            "comment": {"type": "string"},
                            "object": {"type": "string"},
                        },
                        "required": ["decision"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "decision": {"type": "string", "enum": [SEND_BACK]},
                            "comment": {"type": "string", "pattern": "\\S", "description": "Required."},
                            "object": {"type": "string", "description": "The box the comment is about."},
                        },
                        "required": ["decision", "comment"],
                    },
                ]
            }
        },
        responses={200: ImageSerializer, 409: ErrorSerializer},
        summary="Accept a reviewed image, or send it back to its annotator with a comment",
    )
    def post(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        decided = review_decide(image=image, user=request.user, **data.validated_data)
        return Response(ImageSerializer(decided).data)
