"""Imports (a Celery task with progress) and exports (a streamed file) of scene graphs, in every format
of the registry (datasets.formats)."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS, multipart_data
from annotations.models import Split, Stage
from annotations.selectors.collections import access_collection
from annotations.selectors.images import require_images_visible
from datasets.formats import SceneFormat, format_choices, format_values, scene_formats
from datasets.models import AcceptedImages, ImportJob
from datasets.selectors.exports import export_file_name, scene_export
from datasets.selectors.imports import access_import, import_list
from datasets.services.creation import import_cancel, import_confirm, import_create
from vtt_site.api.fields import NonEmptyFileField, QueryChoiceField
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import ErrorSerializer


def _described_formats() -> str:
    return " ".join(f"{spec.value}: {spec.description}" for spec in scene_formats())


def _export_responses() -> dict:
    """One 200 per content type the formats export (a JSON document, or a file of another kind)."""
    kinds = dict.fromkeys(spec.content_type for spec in scene_formats())
    return {
        (200, kind): OpenApiTypes.OBJECT if kind == "application/json" else OpenApiTypes.STR for kind in kinds
    }


ACCEPTED_HELP = (
    "What becomes of the accepted images whose annotation the import would change: keep (they stay as "
    "they are, counted in images_kept) or replace (their annotations are replaced and they go where the "
    "import's images go)."
)


class ImportPlanSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="Images the import creates.")
    changed = serializers.IntegerField(
        help_text="Existing images whose annotation the import changes (the two counts below included)."
    )
    unannotated = serializers.IntegerField(
        help_text="Of the changed: images nobody annotated yet (uploaded pixels), given their first annotation."
    )
    accepted = serializers.IntegerField(help_text="Of the changed: accepted images.")
    unchanged = serializers.IntegerField(
        help_text="Existing images whose stored annotation equals the imported one: left as they are."
    )
    accepted_names = serializers.ListField(
        child=serializers.CharField(), help_text="The first accepted images changed, by name."
    )


class ImportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collection = serializers.IntegerField(source="collection_id")
    format = serializers.CharField()
    original_name = serializers.CharField()
    split = serializers.CharField()
    mark_reviewed = serializers.BooleanField()
    complete = serializers.BooleanField(
        help_text="The source is complete: its images go to review (or accepted); otherwise to the "
        "annotation queue, as drafts to complete."
    )
    strict = serializers.BooleanField(
        help_text="All or nothing. Otherwise (open vocabularies) the good entries go in and every refused "
        "one is listed in errors, unless more than a set share of the entries is refused."
    )
    add_relationship_objects = serializers.BooleanField(
        help_text="Objects found only in a relationship were added (marked `added`) rather than dropped."
    )
    entries_refused = serializers.IntegerField(
        help_text="Entries refused (all counted; errors lists 10,000)."
    )
    pixels_attached = serializers.IntegerField(help_text="Images given their pixels from the images archive.")
    status = serializers.CharField(
        help_text="queued, validating, writing, attaching (the pixels of the images archive), previewed "
        "(waiting for a choice: see plan, then confirm/ or cancel/), done, failed or cancelled."
    )
    progress = serializers.FloatField(help_text="From 0 to 1: the records validated, then 1 when done.")
    message = serializers.CharField(
        help_text="For a person: why it failed, or what a queued import waits for (empty otherwise)."
    )
    lines_total = serializers.IntegerField()
    lines_done = serializers.IntegerField(help_text="Records validated so far.")
    # A field named like a Serializer attribute: DRF's metaclass takes it out of the class.
    errors = serializers.ListField(  # type: ignore[assignment]
        child=serializers.DictField(),
        help_text="Every bad record: {line, message}. Line null: the whole file, or a COCO entry, whose "
        "place in the document starts the message (images[3]: ..., annotations[12]: ...).",
    )
    accepted = serializers.CharField(help_text=f"{ACCEPTED_HELP} Empty: not chosen yet.")
    preview = serializers.BooleanField(help_text="Asked to stop and show its plan before writing.")
    plan = serializers.SerializerMethodField(
        help_text="What the import would do (previewed), or did (done); null before it is planned."
    )
    images_created = serializers.IntegerField()
    images_updated = serializers.IntegerField(help_text="Existing images whose annotation was replaced.")
    images_unchanged = serializers.IntegerField(
        help_text="Existing images whose annotation equals the imported one: left as they were."
    )
    images_kept = serializers.IntegerField(
        help_text="Accepted images the import would have changed, kept as they were (accepted: keep)."
    )
    report = serializers.ListField(
        child=serializers.DictField(),
        help_text="For a format with an open vocabulary, what the mapping did: one {section, total, top: "
        "[[name, count], ...], others} per section (mapped, added, merged, dropped, unknown).",
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(ImportPlanSerializer(allow_null=True))
    def get_plan(self, job: ImportJob) -> dict | None:
        return ImportPlanSerializer(job.plan).data if job.plan else None


class ImportListCreateApi(APIView):
    operations = {"GET": "import.list", "POST": "import.create"}
    error_codes = ANNOTATION_ERRORS
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema_serializer(component_name="ImportCreate")
    class InputSerializer(serializers.Serializer):
        file = NonEmptyFileField(
            help_text=f"The file, not empty, in the format named. {_described_formats()}"
        )
        format = serializers.ChoiceField(choices=format_choices())
        split = serializers.ChoiceField(
            choices=Split.choices, default=Split.TRAIN, help_text="Split of the images the import creates."
        )
        mark_reviewed = serializers.BooleanField(
            default=False,
            help_text="Accept the annotations at once (an existing reviewed dataset). Only from a complete "
            "source: with complete true for "
            + ", ".join(spec.value for spec in scene_formats() if not spec.complete)
            + " (400 otherwise).",
        )
        complete = serializers.BooleanField(
            required=False,
            allow_null=True,
            help_text="The source is complete (every object of the vocabulary's types boxed, every "
            "attribute given). Unset: yes for "
            + ", ".join(spec.value for spec in scene_formats() if spec.complete)
            + ", no for the others, whose images become drafts in the annotation queue.",
        )
        mapping = serializers.FileField(
            required=False,
            allow_empty_file=False,
            help_text="YAML or JSON: how the source's names become the vocabulary's (formats "
            + ", ".join(spec.value for spec in scene_formats() if spec.mapped)
            + " only; without one, the vocabulary's own names are used).",
        )
        images = serializers.FileField(
            required=False,
            allow_empty_file=False,
            help_text="A zip of the images the scene graphs are of: each file is matched to its image by "
            "name (2370799.jpg), else by the image's id in the source; every file that matches nothing, "
            "and every image still without pixels, is reported.",
        )
        strict = serializers.BooleanField(
            default=False,
            help_text="All or nothing: one bad entry refuses the whole file (always so for "
            + ", ".join(spec.value for spec in scene_formats() if not spec.mapped)
            + ").",
        )
        add_relationship_objects = serializers.BooleanField(
            default=False,
            help_text="Make objects, marked `added`, of the subjects and objects of relationships that have "
            "no box of their own; otherwise such relationships are dropped and counted.",
        )
        accepted = serializers.ChoiceField(
            choices=AcceptedImages.choices,
            required=False,
            default="",
            help_text=f"{ACCEPTED_HELP} Unset: when the import would replace existing annotations it "
            "stops as previewed, with its plan, until confirm/ says.",
        )
        preview = serializers.BooleanField(
            default=False, help_text="Stop as previewed, with the plan, before writing anything."
        )

    @extend_schema(responses=paginated(ImportJobSerializer), summary="The collection's imports, newest first")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return page_response(request, self, import_list(collection=collection), ImportJobSerializer)

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={202: ImportJobSerializer, 409: ErrorSerializer, 413: ErrorSerializer},
        summary="Import scene graphs into a collection (runs in the background; poll the job)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=multipart_data(request))
        data.is_valid(raise_exception=True)
        job = import_create(collection=collection, created_by=request.user, **data.validated_data)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ImportDetailApi(APIView):
    operation = "import.read"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(responses=ImportJobSerializer, summary="An import's status, progress and errors")
    def get(self, request, job_id: int):
        return Response(
            ImportJobSerializer(
                access_import(user=request.user, job_id=job_id, operation=request.operation)
            ).data
        )


class ImportConfirmApi(APIView):
    operation = "import.confirm"
    error_codes = ANNOTATION_ERRORS

    @extend_schema_serializer(component_name="ImportConfirm")
    class InputSerializer(serializers.Serializer):
        accepted = serializers.ChoiceField(choices=AcceptedImages.choices, help_text=ACCEPTED_HELP)

    @extend_schema(
        request=InputSerializer,
        responses={202: ImportJobSerializer, 409: ErrorSerializer},
        summary="Go on with a previewed import, saying what becomes of the accepted images it would change",
    )
    def post(self, request, job_id: int):
        job = access_import(user=request.user, job_id=job_id, operation=request.operation)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = import_confirm(job=job, user=request.user, **data.validated_data)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ImportCancelApi(APIView):
    operation = "import.cancel"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={200: ImportJobSerializer, 409: ErrorSerializer},
        summary="Cancel a previewed import: nothing of it is written",
    )
    def post(self, request, job_id: int):
        job = access_import(user=request.user, job_id=job_id, operation=request.operation)
        return Response(ImportJobSerializer(import_cancel(job=job)).data)


class ExportApi(APIView):
    operation = "export.read"
    error_codes = ANNOTATION_ERRORS

    class FilterSerializer(serializers.Serializer):
        stage = QueryChoiceField(choices=Stage.choices, required=False)

    @extend_schema(
        parameters=[
            FilterSerializer,
            OpenApiParameter("scene_format", OpenApiTypes.STR, OpenApiParameter.PATH, enum=format_values()),
        ],
        responses=_export_responses(),
        summary="Export the annotated images of a collection as "
        + " or ".join(spec.name for spec in scene_formats())
        + " (a streamed file)",
    )
    def get(self, request, collection_id: int, scene_format: SceneFormat):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_images_visible(collection=collection, user=request.user)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        stage = filters.validated_data.get("stage")
        chunks = scene_export(collection=collection, scene_format=scene_format, stage=stage)
        response = StreamingHttpResponse(chunks, content_type=scene_format.content_type)
        name = export_file_name(collection=collection, scene_format=scene_format, stage=stage)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
