"""The collection page (progress, images, upload, import, export) and an import's progress page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotations.models import Collection, Image, ModelBackend, PreannotationJob
from annotations.selectors.collections import collection_progress
from annotations.selectors.images import image_list, images_hidden_from
from annotations.selectors.suggestions import secret_problem
from annotations.services.images import image_upload
from annotations.services.preannotation import preannotation_create
from annotations.services.suggestion_check import model_backend_check
from annotations.services.suggestions import model_backend_set
from datasets.conf import conf as dataset_conf
from datasets.models import ImportJob
from datasets.selectors.imports import import_list
from datasets.services.creation import import_cancel, import_confirm, import_create
from frontend.forms import ImageFilterForm, ImportForm, ModelBackendForm, UploadForm
from frontend.views.bucket import bucket_source_context
from frontend.views.common import allowed_actions, collection_or_404, import_or_404, require
from frontend.views.crowd_setup import crowd_context
from frontend.views.home import collection_summary
from vtt_site.errors import ApplicationError
from vtt_site.paging import IdsFirstPaginator

IMAGES_PER_PAGE = 48
RECENT_IMPORTS = 5


def _upload_key(collection: Collection) -> str:
    return f"frontend:upload-result:{collection.pk}"


@login_required
@require_GET
def collection_detail(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    filters = ImageFilterForm(request.GET)
    chosen = filters.cleaned_data if filters.is_valid() else {}
    # An annotator of a crowd collection sees only their own work (annotations.routing).
    hidden = images_hidden_from(collection=collection, user=request.user)
    images = (
        Image.objects.none()
        if hidden
        else image_list(
            collection=collection,
            stage=chosen.get("stage") or None,
            split=chosen.get("split") or None,
            name=(chosen.get("name") or "").strip() or None,
        )
    )
    progress = collection_progress(collection=collection)
    # Unfiltered, the list is every image the progress counted: no second count (decision 0098).
    filtered = hidden or any(chosen.get(name) for name in ("stage", "split", "name"))
    paginator = IdsFirstPaginator(images, IMAGES_PER_PAGE, count=None if filtered else progress["total"])
    page = paginator.get_page(request.GET.get("page"))
    # The filters without the page number, for the pagination links.
    query = request.GET.copy()
    query.pop("page", None)
    actions = allowed_actions(request.user, collection)
    context = {
        **collection_summary(collection, progress),
        "actions": actions,
        "filters": filters,
        "page": page,
        "query": query.urlencode(),
        "upload_form": UploadForm() if actions["upload"] else None,
        "upload_result": request.session.pop(_upload_key(collection), None),
        "upload_max_files": settings.DATA_UPLOAD_MAX_NUMBER_FILES,
        "import_form": ImportForm() if actions["import"] else None,
        "refused_share": f"{dataset_conf.IMPORT_MAX_REFUSED_SHARE:.0%}",
        # So an import can be found again after leaving its progress page.
        "recent_imports": import_list(collection=collection).select_related("created_by")[:RECENT_IMPORTS]
        if actions["import"]
        else [],
        **(_model_backend_context(collection) if actions["model_backend"] else {}),
        **(bucket_source_context(collection) if actions["bucket_source"] else {}),
        **crowd_context(request.user, collection),
    }
    return render(request, "frontend/collection.html", context)


def _model_backend_context(collection: Collection) -> dict[str, Any]:
    """The model server's section (decision 0078): its state, its form (never the credential), and the
    latest pre-annotation with its failures."""
    backend = ModelBackend.objects.filter(collection=collection).first()
    initial = {"enabled": True}
    if backend is not None:
        fields = ("url", "auth", "username", "header_name", "enabled")
        initial = {name: getattr(backend, name) for name in fields}
    return {
        "model_backend": backend,
        "model_backend_form": ModelBackendForm(initial=initial),
        "secret_problem": secret_problem(backend) if backend is not None else "",
        "preannotation": PreannotationJob.objects.filter(collection=collection).order_by("-pk").first(),
    }


def _model_backend_back(collection: Collection) -> HttpResponse:
    return redirect(reverse("frontend:collection", args=[collection.pk]) + "#model-server")


@login_required
@require_POST
def model_backend_save(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "suggestions.backend.set", collection)
    form = ModelBackendForm(request.POST)
    if not form.is_valid():
        _say_form_errors(request, form, "Model server")
        return _model_backend_back(collection)
    try:
        model_backend_set(collection=collection, user=request.user, **form.service_values())
    except ApplicationError as exc:
        _say_refusal(request, exc)
        return _model_backend_back(collection)
    messages.success(request, "Model server saved. Check it to see that it answers.")
    return _model_backend_back(collection)


@login_required
@require_POST
def model_backend_check_view(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "suggestions.backend.check", collection)
    backend = ModelBackend.objects.filter(collection=collection).first()
    if backend is None:
        messages.error(request, "This collection is connected to no model server: save its address first.")
        return _model_backend_back(collection)
    backend = model_backend_check(backend=backend)
    if backend.last_error:
        messages.error(request, f"The model server did not answer well: {backend.last_error}")
    else:
        messages.success(
            request, f"The model server answers: model {backend.model_version or '(no version)'}."
        )
    return _model_backend_back(collection)


@login_required
@require_POST
def model_backend_preannotate(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "suggestions.preannotate", collection)
    try:
        preannotation_create(collection=collection, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _model_backend_back(collection)
    messages.success(
        request, "Pre-annotation started: the model is asked about every image still to annotate."
    )
    return _model_backend_back(collection)


@login_required
@require_POST
def upload(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Store the good files, refuse the bad ones by name; the result is shown once on the collection page
    (post/redirect/get, so a reload does not upload again)."""
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "image.upload", collection)
    back = reverse("frontend:collection", args=[collection.pk]) + "#upload"
    # More files than DATA_UPLOAD_MAX_NUMBER_FILES never reach this view: Django's CSRF check parses the
    # body first and answers 400. The page's script (upload_form.js) counts the files before sending.
    files = request.FILES.getlist("files")
    form = UploadForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose train or test for the uploaded images.")
        return redirect(back)
    try:
        result = image_upload(
            collection=collection, files=files, split=form.cleaned_data["split"], uploaded_by=request.user
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    request.session[_upload_key(collection)] = _upload_summary(result)
    return redirect(back)


def _upload_summary(result: Any) -> dict[str, Any]:
    return {
        "created": [{"id": image.pk, "name": image.original_name} for image in result.created],
        "attached": [{"id": image.pk, "name": image.original_name} for image in result.attached],
        "rejected": [{"file": r.file, "code": r.code, "message": r.message} for r in result.rejected],
    }


@login_required
@require_POST
def import_start(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "import.create", collection)
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        _say_form_errors(request, form, "Import")
        return _go(request, reverse("frontend:collection", args=[collection.pk]) + "#import")
    try:
        job = import_create(collection=collection, created_by=request.user, **form.cleaned_data)
    except ApplicationError as exc:  # a mapping with problems (each is said), too many imports waiting
        _say_refusal(request, exc)
        return _go(request, reverse("frontend:collection", args=[collection.pk]) + "#import")
    return _go(request, reverse("frontend:import", args=[job.pk]))


def _say_form_errors(request: HttpRequest, form: Any, what: str) -> None:
    """One message per field the form refused, named as the section calls it ("Import file: ...")."""
    for field, errors in form.errors.items():
        messages.error(request, f"{what} {field}: {' '.join(str(error) for error in errors)}")


def _say_refusal(request: HttpRequest, exc: ApplicationError) -> None:
    """A service's refusal as one message: its sentence, then what it says of each field."""
    details = [message for messages_ in exc.fields.values() for message in messages_]
    messages.error(request, " ".join([exc.message, *details]))


def _go(request: HttpRequest, url: str) -> HttpResponse:
    """A redirect; for the page's script, which sends the form itself to show the bytes sent
    (import_form.js), the address as JSON, so the messages wait for the page it then opens."""
    if request.headers.get("X-Requested-With") == "XMLHttpRequest":
        return JsonResponse({"location": url})
    return redirect(url)


# The statuses in which an import waits for nothing but a person: the page stops polling.
SETTLED = (
    ImportJob.Status.DONE,
    ImportJob.Status.FAILED,
    ImportJob.Status.CANCELLED,
    ImportJob.Status.PREVIEWED,
)


@login_required
@require_GET
def import_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    """The job as it is now; the page's script polls the API until it is done, failed or waits for a
    choice (then the page shows what the import would change, with the buttons to go on or cancel)."""
    job = import_or_404(request.user, job_id)
    require(request.user, "import.read", job.collection)
    plan = job.plan or {}
    return render(
        request,
        "frontend/import.html",
        {
            "job": job,
            "api_url": reverse("api:import", args=[job.pk]),
            "finished": job.status in SETTLED,
            "accepted_more": max(0, plan.get("accepted", 0) - len(plan.get("accepted_names", []))),
        },
    )


@login_required
@require_POST
def import_go_on(request: HttpRequest, job_id: int) -> HttpResponse:
    """The choice on a previewed import's page: go on, keeping or replacing the accepted images."""
    return _decide(
        request,
        job_id,
        "import.confirm",
        lambda job: import_confirm(job=job, accepted=request.POST.get("accepted", ""), user=request.user),
    )


@login_required
@require_POST
def import_stop(request: HttpRequest, job_id: int) -> HttpResponse:
    return _decide(request, job_id, "import.cancel", lambda job: import_cancel(job=job))


def _decide(request: HttpRequest, job_id: int, operation: str, decide: Any) -> HttpResponse:
    """Take a person's decision on a previewed import, then show its page again; a refusal (it no longer
    waits, no choice said, too many imports running) is said there."""
    job = import_or_404(request.user, job_id)
    require(request.user, operation, job.collection)
    try:
        decide(job)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(reverse("frontend:import", args=[job.pk]))
