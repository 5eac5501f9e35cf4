"""Merges and their review, gold images and pauses: for a crowd collection's reviewers."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.annotation import AnnotationApi
from annotations.api.common import SceneRecordSerializer
from annotations.selectors.collections import access_collection
from annotations.selectors.images import access_image
from crowd.api.common import CROWD_ERRORS
from crowd.models import MergeState
from crowd.selectors import (
    access_merge,
    merge_disagreements,
    merge_list,
    merge_summary,
    merge_versions,
    pauses_active,
    require_crowd,
)
from crowd.services.gold import gold_mark, pause_lift
from crowd.services.review import merge_accept, merge_correct, merge_leave, merge_review_next
from vtt_site.api.parsers import ANNOTATION_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer
from vtt_site.errors import ApplicationError, CommonErrorCode


class MergeSerializer(serializers.Serializer):
    image = serializers.IntegerField(source="image_id")
    image_name = serializers.CharField(source="image.original_name")
    state = serializers.CharField()
    box_f1 = serializers.FloatField(allow_null=True)
    attribute_agreement = serializers.FloatField(allow_null=True)
    relationship_agreement = serializers.FloatField(allow_null=True)
    weighted = serializers.BooleanField(help_text="Votes weighed by each annotator's estimated reliability.")
    lease_expires_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="CrowdMergeDetail")
class MergeDetailSerializer(MergeSerializer):
    merged = serializers.DictField(help_text="The merged scene graph (as corrected by its reviewer).")
    versions = serializers.ListField(child=serializers.DictField(), help_text="Each annotator's version.")
    disagreements = serializers.ListField(child=serializers.DictField())


def merge_detail(merge) -> dict:
    return MergeSerializer(merge).data | {
        "merged": merge.merged,
        "versions": merge_versions(merge),
        "disagreements": merge_disagreements(merge),
    }


class SummarySerializer(serializers.Serializer):
    merged = serializers.IntegerField()
    waiting = serializers.IntegerField()
    accepted = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    gold_images = serializers.IntegerField()
    box_f1 = serializers.FloatField(allow_null=True)
    attribute_agreement = serializers.FloatField(allow_null=True)
    relationship_agreement = serializers.FloatField(allow_null=True)


class MergeListApi(APIView):
    operation = "crowd.merges.list"
    error_codes = CROWD_ERRORS

    @extend_schema(
        parameters=[OpenApiParameter("state", str, enum=list(MergeState.values), required=False)],
        responses={200: MergeSerializer(many=True), 409: ErrorSerializer},
        summary="The collection's merged images with their agreement",
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_crowd(collection)
        state = request.query_params.get("state") or None
        if state is not None and state not in MergeState.values:
            state = "none"  # an unknown state lists nothing, as a filter that matches nothing
        return Response(
            MergeSerializer(merge_list(collection=collection, state=state)[:1000], many=True).data
        )


class SummaryApi(APIView):
    operation = "crowd.summary"
    error_codes = CROWD_ERRORS

    @extend_schema(
        responses={200: SummarySerializer, 409: ErrorSerializer}, summary="The collection's agreement, in sum"
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_crowd(collection)
        return Response(SummarySerializer(merge_summary(collection=collection)).data)


class ReviewNextApi(APIView):
    operation = "crowd.review.next"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None,
        responses={
            200: MergeDetailSerializer,
            204: OpenApiResponse(description="Nothing waits for review."),
            409: ErrorSerializer,
        },
        summary="Take the next merge to review (never of an image you drew)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        merge = merge_review_next(collection=collection, user=request.user)
        if merge is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(merge_detail(merge))


class MergeApi(APIView):
    operations = {"GET": "crowd.merge.read", "PUT": "crowd.merge.correct", "DELETE": "crowd.merge.release"}
    error_codes = CROWD_ERRORS
    json_body_max_bytes = ANNOTATION_BODY_BYTES

    @extend_schema(
        responses=MergeDetailSerializer, summary="An image's merge, each version and the disagreements"
    )
    def get(self, request, image_id: int):
        return Response(
            merge_detail(access_merge(user=request.user, image_id=image_id, operation=request.operation))
        )

    @extend_schema(
        request=AnnotationApi.InputSerializer,
        responses={200: SceneRecordSerializer, 409: ErrorSerializer},
        summary="Correct the merge, or put an annotator's version in its place (you must hold it)",
    )
    def put(self, request, image_id: int):
        merge = access_merge(user=request.user, image_id=image_id, operation=request.operation)
        data = AnnotationApi.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        corrected = merge_correct(merge=merge, user=request.user, document=data.validated_data)
        # The shape an annotation save answers, so the review page's editor takes it as it is.
        image = corrected.image
        record = {"image": image.original_name, "width": image.width, "height": image.height}
        return Response(record | corrected.merged | {"lease_expires_at": corrected.lease_expires_at})

    @extend_schema(
        request=None, responses={204: None, 409: ErrorSerializer}, summary="Give the merge back unreviewed"
    )
    def delete(self, request, image_id: int):
        merge_leave(
            merge=access_merge(user=request.user, image_id=image_id, operation=request.operation),
            user=request.user,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MergeAcceptApi(APIView):
    operation = "crowd.merge.accept"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None,
        responses={200: MergeDetailSerializer, 409: ErrorSerializer},
        summary="Accept the merge: it becomes the image's annotation",
        description="A body, if any, may only say `decision: accept` (what the review page sends): a merge "
        "is corrected or accepted, never sent back.",
    )
    def post(self, request, image_id: int):
        merge = access_merge(user=request.user, image_id=image_id, operation=request.operation)
        decision = request.data.get("decision", "accept") if isinstance(request.data, dict) else "accept"
        if decision != "accept":
            raise ApplicationError(
                CommonErrorCode.INVALID,
                "A crowd's merge cannot be sent back: correct it, or use one annotator's version, then accept.",
                fields={"decision": ["Only accept."]},
            )
        return Response(merge_detail(merge_accept(merge=merge, user=request.user)))


class GoldApi(APIView):
    operation = "crowd.gold.mark"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None, responses={201: None, 409: ErrorSerializer}, summary="Make an accepted image gold"
    )
    def post(self, request, image_id: int):
        gold_mark(
            image=access_image(user=request.user, image_id=image_id, operation=request.operation),
            user=request.user,
        )
        return Response(status=status.HTTP_201_CREATED)


class PauseSerializer(serializers.Serializer):
    annotator = serializers.CharField(source="annotator.username")
    annotator_id = serializers.IntegerField()
    reason = serializers.CharField()
    paused_at = serializers.DateTimeField()


class PauseListApi(APIView):
    operation = "crowd.pauses.list"
    error_codes = CROWD_ERRORS

    @extend_schema(
        responses=PauseSerializer(many=True), summary="The annotators paused in the collection, and why"
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return Response(PauseSerializer(pauses_active(collection=collection), many=True).data)


class PauseLiftApi(APIView):
    operation = "crowd.pauses.lift"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None, responses={204: None, 404: ErrorSerializer}, summary="Let a paused annotator work again"
    )
    def delete(self, request, collection_id: int, user_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        pause_lift(collection=collection, annotator_id=user_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
