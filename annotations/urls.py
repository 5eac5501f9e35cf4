"""Annotation API, mounted under /api/v1/ (imports and exports: datasets.urls)."""

from django.urls import path

from annotations.api import (
    annotation,
    collections,
    images,
    queues,
    signed,
    suggestions,
    vocabularies,
)

urlpatterns = [
    path("vocabularies/", vocabularies.VocabularyListCreateApi.as_view(), name="vocabularies"),
    path("vocabularies/<int:vocabulary_id>/", vocabularies.VocabularyDetailApi.as_view(), name="vocabulary"),
    path("collections/", collections.CollectionListCreateApi.as_view(), name="collections"),
    path("collections/<int:collection_id>/", collections.CollectionDetailApi.as_view(), name="collection"),
    path(
        "collections/<int:collection_id>/members/",
        collections.MemberListAddApi.as_view(),
        name="collection-members",
    ),
    path(
        "collections/<int:collection_id>/members/<int:user_id>/",
        collections.MemberRemoveApi.as_view(),
        name="collection-member",
    ),
    path(
        "collections/<int:collection_id>/images/",
        images.ImageListUploadApi.as_view(),
        name="collection-images",
    ),
    path(
        "collections/<int:collection_id>/queue/annotation/next/",
        queues.AnnotationQueueApi.as_view(),
        name="queue-annotation-next",
    ),
    path(
        "collections/<int:collection_id>/queue/review/next/",
        queues.ReviewQueueApi.as_view(),
        name="queue-review-next",
    ),
    path(
        "collections/<int:collection_id>/model-backend/",
        suggestions.ModelBackendApi.as_view(),
        name="model-backend",
    ),
    path(
        "collections/<int:collection_id>/model-backend/check/",
        suggestions.ModelBackendCheckApi.as_view(),
        name="model-backend-check",
    ),
    path(
        "collections/<int:collection_id>/model-backend/preannotate/",
        suggestions.PreannotationCreateApi.as_view(),
        name="preannotate",
    ),
    path("preannotations/<int:job_id>/", suggestions.PreannotationDetailApi.as_view(), name="preannotation"),
    path("images/<int:image_id>/", images.ImageDetailApi.as_view(), name="image"),
    path("images/<int:image_id>/file/", images.ImageFileApi.as_view(), name="image-file"),
    path("images/<int:image_id>/annotation/", annotation.AnnotationApi.as_view(), name="image-annotation"),
    path("images/<int:image_id>/submit/", annotation.AnnotationSubmitApi.as_view(), name="image-submit"),
    path(
        "images/<int:image_id>/suggestions/",
        suggestions.ImageSuggestionsApi.as_view(),
        name="image-suggestions",
    ),
    # No login: the signature is the permission (what a model server is sent; decision 0078).
    path("signed/images/<str:token>/", signed.signed_image, name="image-signed"),
    path("images/<int:image_id>/lease/", queues.LeaseReleaseApi.as_view(), name="image-lease"),
    path("images/<int:image_id>/review/", queues.ReviewDecideApi.as_view(), name="image-review"),
    path(
        "images/<int:image_id>/review/annotation/",
        annotation.ReviewCorrectApi.as_view(),
        name="image-review-annotation",
    ),
    path(
        "suggestions/<int:suggestion_id>/reject/",
        suggestions.SuggestionRejectApi.as_view(),
        name="suggestion-reject",
    ),
    path(
        "suggestions/<int:suggestion_id>/restore/",
        suggestions.SuggestionRestoreApi.as_view(),
        name="suggestion-restore",
    ),
]
