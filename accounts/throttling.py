"""Rate limits: per API token for programs, per user for browser sessions, per address for anonymous."""

from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken


class TokenRateThrottle(SimpleRateThrottle):
    scope = "token"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class SessionUserRateThrottle(SimpleRateThrottle):
    scope = "session"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated and not isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
        return None
