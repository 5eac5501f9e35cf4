"""The API views that answer with a file's bytes (an image's pixels) instead of JSON.

DRF negotiates the response's type from the Accept header before the view runs, against the view's
renderers; with only the JSON renderer, a client asking for what the schema declares (`image/png`,
`image/*`) got a 406 (issue 20). A `FileApiView` takes any Accept header that admits an image type: the
view answers with a `FileResponse`, which DRF does not render, and anything else it answers (the error
shape) is JSON whatever the client asked for, since an error has no image form. The schema is
unchanged: the views declare their image responses themselves.
"""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView


def accepts_an_image(accept: str) -> bool:
    """Whether an Accept header admits some image type (`image/png`, `image/*`; `*/*` is matched by
    DRF itself)."""
    for item in accept.split(","):
        media_type, *params = (part.strip().lower() for part in item.split(";"))
        refused = any(param.replace(" ", "") in {"q=0", "q=0.0", "q=0.00", "q=0.000"} for param in params)
        if media_type.startswith("image/") and not refused:
            return True
    return False


class FileApiView(APIView):
    def perform_content_negotiation(self, request, force=False):
        try:
            return super().perform_content_negotiation(request, force=force)
        except NotAcceptable:
            if not accepts_an_image(request.META.get("HTTP_ACCEPT", "")):
                raise
            return JSONRenderer(), JSONRenderer.media_type
