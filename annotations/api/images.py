"""Images: list and upload in a collection, read, change the split, and the pixels themselves."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS, ImageSerializer, multipart_data
from annotations.errors import AnnotationErrorCode
from annotations.models import Split, Stage
from annotations.selectors.collections import NEW, access_collection
from annotations.selectors.images import access_image, image_list, require_images_visible
from annotations.services.images import image_thumbnail_ensure, image_update, image_upload
from vtt_site.api.errors import error_body
from vtt_site.api.fields import QueryChoiceField
from vtt_site.api.files import FileApiView
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import ErrorSerializer, error_code_field
from vtt_site.errors import ApplicationError, CommonErrorCode, NotFoundError
from vtt_site.storage import CACHED, PRESIGNED_REDIRECT, file_response


class RejectionSerializer(serializers.Serializer):
    file = serializers.CharField(help_text="The file name (for a zip entry: its path in the archive).")
    code = serializers.CharField()
    message = serializers.CharField()


class UploadRefusedFieldsSerializer(serializers.Serializer):
    files = RejectionSerializer(many=True, help_text="Every file of the upload, with why it was refused.")


class UploadRefusedSerializer(ErrorSerializer):
    """The one error shape, with `fields.files` holding each refused file as an object (a file name is
    not a path in the request, so it cannot be a key of `fields`)."""

    code = error_code_field("UploadRefused", (AnnotationErrorCode.NO_IMAGE_ACCEPTED,))
    fields = UploadRefusedFieldsSerializer()  # type: ignore[assignment]  # a field, as in ErrorSerializer


class UploadResultSerializer(serializers.Serializer):
    created = ImageSerializer(many=True)
    attached = ImageSerializer(many=True, help_text="Images imported without pixels that got them.")
    rejected = RejectionSerializer(many=True)


class ImageListUploadApi(APIView):
    operations = {"GET": "image.list", "POST": "image.upload"}
    error_codes = ANNOTATION_ERRORS
    parser_classes = [MultiPartParser, FormParser]

    class FilterSerializer(serializers.Serializer):
        split = QueryChoiceField(choices=Split.choices, required=False)
        stage = QueryChoiceField(
            choices=[(NEW, "new"), *Stage.choices],
            required=False,
            help_text="A stage, or new: in annotation, never annotated, not sent back, nobody on it.",
        )
        name = serializers.CharField(
            required=False, max_length=255, help_text="Part of the file name (any case)."
        )

    @extend_schema_serializer(component_name="ImageUpload")
    class InputSerializer(serializers.Serializer):
        files = serializers.ListField(
            child=serializers.FileField(allow_empty_file=True),
            allow_empty=False,
            help_text="Images (JPEG, PNG, WebP) and zip archives of images; repeat the field per file.",
        )
        split = serializers.ChoiceField(choices=Split.choices, default=Split.TRAIN)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=paginated(ImageSerializer),
        summary="Images of a collection, filtered by split, stage and file name",
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_images_visible(collection=collection, user=request.user)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return page_response(
            request, self, image_list(collection=collection, **filters.validated_data), ImageSerializer
        )

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={
            201: OpenApiResponse(
                UploadResultSerializer, "At least one image went in; `rejected` lists the rest."
            ),
            400: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="UploadError",
                    serializers=[UploadRefusedSerializer, ErrorSerializer],
                    resource_type_field_name=None,
                ),
                "No image went in: `fields.files` lists every file with its code and message; or the "
                "request itself is invalid (`fields` as in any error).",
            ),
            413: OpenApiResponse(ErrorSerializer, "More files in one request than the platform accepts."),
        },
        summary="Upload images, many images or zip archives",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=multipart_data(request))
        data.is_valid(raise_exception=True)
        result = image_upload(
            collection=collection,
            files=data.validated_data["files"],
            split=data.validated_data["split"],
            uploaded_by=request.user,
        )
        rejected = RejectionSerializer(result.rejected, many=True).data
        if not result.created and not result.attached:
            first = result.rejected[0]
            message = f"No image was accepted. {first.file}: {first.message}"
            body = error_body(AnnotationErrorCode.NO_IMAGE_ACCEPTED, message, {"files": rejected})
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        body = {
            "created": ImageSerializer(result.created, many=True).data,
            "attached": ImageSerializer(result.attached, many=True).data,
            "rejected": rejected,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class ImageDetailApi(APIView):
    operations = {"GET": "image.read", "PATCH": "image.update"}
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="ImageUpdate")
    class InputSerializer(serializers.Serializer):
        split = serializers.ChoiceField(choices=Split.choices)

    @extend_schema(responses=ImageSerializer, summary="An image and where it is in the workflow")
    def get(self, request, image_id: int):
        return Response(
            ImageSerializer(
                access_image(user=request.user, image_id=image_id, operation=request.operation)
            ).data
        )

    @extend_schema(
        request=InputSerializer, responses=ImageSerializer, summary="Move an image to train or test"
    )
    def patch(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        # Partial, as PATCH says (and the schema): without `split` nothing changes.
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        if "split" in data.validated_data:
            image = image_update(image=image, **data.validated_data)
        return Response(ImageSerializer(image).data)


class ImageFileApi(FileApiView):
    operation = "image.file"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "size",
                str,
                enum=["original", "thumbnail"],
                required=False,
                description="`thumbnail`: a JPEG at most 320 pixels on its longer side (for lists).",
            )
        ],
        responses={
            (200, "image/jpeg"): OpenApiTypes.BINARY,
            (200, "image/png"): OpenApiTypes.BINARY,
            (200, "image/webp"): OpenApiTypes.BINARY,
            302: OpenApiResponse(description=PRESIGNED_REDIRECT),
        },
        summary="The image's pixels (upright), for members only",
    )
    def get(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        size = request.query_params.get("size", "original")
        if size not in {"original", "thumbnail"}:
            raise ApplicationError(
                CommonErrorCode.INVALID, "size must be original or thumbnail.", fields={"size": ["Unknown."]}
            )
        if not image.file:
            raise NotFoundError(
                AnnotationErrorCode.IMAGE_HAS_NO_FILE,
                f"{image.original_name} came from an imported scene graph; the platform has no pixels for it.",
            )
        if size == "thumbnail":
            return file_response(
                image.file, name=image_thumbnail_ensure(image=image), content_type="image/jpeg", cache=CACHED
            )
        return file_response(image.file, cache=CACHED)
