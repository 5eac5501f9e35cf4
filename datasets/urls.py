"""Import and export API, mounted under /api/v1/ beside the annotation API, whose collections it serves."""

import re

from django.urls import path, register_converter

from datasets import api, api_bucket
from datasets.formats import SceneFormat, format_values, scene_format


class SceneFormatConverter:
    """The registered formats' values, and nothing else: any other path is a JSON 404."""

    regex = "(?:" + "|".join(re.escape(value) for value in format_values()) + ")"

    def to_python(self, value: str) -> SceneFormat:
        return scene_format(value)

    def to_url(self, value: SceneFormat | str) -> str:
        return scene_format(value).value


register_converter(SceneFormatConverter, "scene_format")

urlpatterns = [
    path(
        "collections/<int:collection_id>/bucket-source/",
        api_bucket.BucketSourceApi.as_view(),
        name="bucket-source",
    ),
    path(
        "collections/<int:collection_id>/bucket-source/sync/",
        api_bucket.BucketSourceSyncApi.as_view(),
        name="bucket-source-sync",
    ),
    path(
        "collections/<int:collection_id>/export/<scene_format:scene_format>/bucket/",
        api_bucket.ExportToBucketApi.as_view(),
        name="export-bucket",
    ),
    path("collections/<int:collection_id>/imports/", api.ImportListCreateApi.as_view(), name="imports"),
    path(
        "collections/<int:collection_id>/export/<scene_format:scene_format>/",
        api.ExportApi.as_view(),
        name="export",
    ),
    path("imports/<int:job_id>/", api.ImportDetailApi.as_view(), name="import"),
    path("imports/<int:job_id>/confirm/", api.ImportConfirmApi.as_view(), name="import-confirm"),
    path("imports/<int:job_id>/cancel/", api.ImportCancelApi.as_view(), name="import-cancel"),
]
