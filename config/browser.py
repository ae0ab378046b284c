"""Middleware that only pages for a browser need: sessions, the logged-in user and messages (the
admin site; the API docs' pages keep them too). A JSON API request skips them: its callers
authenticate with a key or a token on every request (DRF, `adminops.authentication`), never with a
session. Run for every request, the three cost about a fortieth of a tool call
(docs/performance.md). CSRF is not among them: Django's own middleware runs for every request (its
check passes DRF's exempt views by), so `check --deploy` finds it where it looks.

Each is Django's own class, run as it is for every request outside `API_PREFIXES`, and passed over
for the others.
"""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware

# The JSON API's paths (DESIGN section 4): anything else is treated as a page, as are the OAuth
# provider's consent page and its sign-in (/oauth/authorize, /oauth/login).
API_PREFIXES = ("/api/v1/", "/v2/", "/oauth/token", "/oauth/revoke", "/oauth/introspect", "/health")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIXES)


class _BrowserOnly:
    """Mixed into a subclass of one of Django's middleware (so that the admin's checks still find
    theirs in MIDDLEWARE)."""

    def __call__(self, request):
        if is_api_path(request.path_info):
            return self.get_response(request)
        return super().__call__(request)


class BrowserSessionMiddleware(_BrowserOnly, SessionMiddleware):
    pass


class BrowserAuthenticationMiddleware(_BrowserOnly, AuthenticationMiddleware):
    pass


class BrowserMessageMiddleware(_BrowserOnly, MessageMiddleware):
    pass
