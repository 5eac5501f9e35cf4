"""An image's pixels at a signed, expiring address: what a model server is sent (decision 0078).

A plain Django view, outside DRF's authentication and the role matrix on purpose: the signature is the
permission (`annotations.suggestions.signing`). A tampered or unknown token is a 404, an expired one a
403, both in the API's error shape; nothing else about the site or the image is told.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.views.decorators.http import require_GET

from annotations.errors import AnnotationErrorCode
from annotations.models import Image
from annotations.suggestions.signing import TokenExpired, TokenInvalid, image_from_token
from vtt_site.api.errors import error_body
from vtt_site.storage import file_response

INVALID = "This image address is not valid."
EXPIRED = "This image address has expired; the model server is sent a fresh one with each request."


@require_GET
def signed_image(request: HttpRequest, token: str) -> HttpResponseBase:
    try:
        image_id = image_from_token(token)
    except TokenExpired:
        return JsonResponse(error_body(AnnotationErrorCode.SIGNED_URL_EXPIRED, EXPIRED), status=403)
    except TokenInvalid:
        return JsonResponse(error_body(AnnotationErrorCode.SIGNED_URL_INVALID, INVALID), status=404)
    image = Image.objects.filter(pk=image_id).exclude(file="").first()
    if image is None:
        return JsonResponse(error_body(AnnotationErrorCode.SIGNED_URL_INVALID, INVALID), status=404)
    response = file_response(image.file, cache="private, no-store")
    response["Referrer-Policy"] = "no-referrer"
    return response
