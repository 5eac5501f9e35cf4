"""Account pages: API tokens (log in, log out and the password pages are Django's own views)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors as account_selectors
from accounts import services as account_services
from evaluation.selectors.access import systems_of_tokens
from vtt_site.errors import ApplicationError


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    created_secret = None
    if request.method == "POST":
        try:
            days = request.POST.get("expires_in_days") or None
            token, created_secret = account_services.token_create(
                user=request.user,
                name=request.POST.get("name", ""),
                expires_in_days=int(days) if days else None,
            )
            messages.success(request, f"Token {token.name!r} created. Copy it now: it is not shown again.")
        except ValueError:
            messages.error(request, "Expiry must be a whole number of days.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    tokens = list(account_selectors.tokens_of(user=request.user))
    acting = systems_of_tokens(tokens)
    context = {
        "tokens": [(token, acting.get(token.pk)) for token in tokens],
        "created_secret": created_secret,
    }
    return render(request, "frontend/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = account_services.token_revoke(user=request.user, token_id=token_id)
        messages.success(request, f"Token {token.name!r} revoked.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("frontend:tokens")
