"""Collections, their progress and their members."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS, UserRefSerializer, VocabularyRefSerializer
from annotations.models import MemberRole
from annotations.selectors.collections import (
    access_collection,
    collection_list,
    collection_progress,
    member_list,
)
from annotations.selectors.vocabularies import vocabulary_get
from annotations.services.collections import collection_create, membership_remove, membership_set
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import ErrorSerializer


class CollectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    vocabulary = VocabularyRefSerializer()
    created_at = serializers.DateTimeField()


class StageCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    new = serializers.IntegerField(help_text="Never annotated and nobody working on them.")
    in_annotation = serializers.IntegerField()
    in_review = serializers.IntegerField()
    accepted = serializers.IntegerField()


class ProgressSerializer(StageCountsSerializer):
    by_split = serializers.DictField(child=StageCountsSerializer(), help_text="The same counts per split.")


class CollectionDetailSerializer(CollectionSerializer):
    progress = ProgressSerializer()


class CollectionListCreateApi(APIView):
    operations = {"GET": "collection.list", "POST": "collection.create"}
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="CollectionCreate")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        vocabulary = serializers.IntegerField(help_text="Id of the vocabulary (one version of it).")
        description = serializers.CharField(required=False, allow_blank=True, default="")

    @extend_schema(responses=paginated(CollectionSerializer), summary="The collections I am a member of")
    def get(self, request):
        return page_response(request, self, collection_list(user=request.user), CollectionSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={201: CollectionDetailSerializer, 409: ErrorSerializer},
        summary="Create a collection",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        collection = collection_create(
            name=data.validated_data["name"],
            vocabulary=vocabulary_get(vocabulary_id=data.validated_data["vocabulary"]),
            description=data.validated_data["description"],
            created_by=request.user,
        )
        body = CollectionSerializer(collection).data | {
            "progress": collection_progress(collection=collection)
        }
        return Response(CollectionDetailSerializer(body).data, status=status.HTTP_201_CREATED)


class CollectionDetailApi(APIView):
    operation = "collection.read"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(responses=CollectionDetailSerializer, summary="A collection with its progress")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        body = CollectionSerializer(collection).data | {
            "progress": collection_progress(collection=collection)
        }
        return Response(CollectionDetailSerializer(body).data)


class MembershipSerializer(serializers.Serializer):
    user = UserRefSerializer()
    role = serializers.CharField()
    created_at = serializers.DateTimeField()


class MemberListAddApi(APIView):
    operations = {"GET": "collection.members.list", "POST": "collection.members.add"}
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="MemberAdd")
    class InputSerializer(serializers.Serializer):
        user = serializers.IntegerField(help_text="Id of the user.")
        role = serializers.ChoiceField(choices=MemberRole.choices)

    @extend_schema(responses=paginated(MembershipSerializer), summary="Members of a collection")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return page_response(request, self, member_list(collection=collection), MembershipSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={201: MembershipSerializer, 200: MembershipSerializer},
        summary="Add a member, or change a member's role (200)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership, created = membership_set(
            collection=collection, user_id=data.validated_data["user"], role=data.validated_data["role"]
        )
        return Response(
            MembershipSerializer(membership).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class MemberRemoveApi(APIView):
    operation = "collection.members.remove"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(request=None, responses={204: None}, summary="Remove a member (their leases are released)")
    def delete(self, request, collection_id: int, user_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        membership_remove(collection=collection, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
