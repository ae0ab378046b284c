"""Middleware that only pages for a browser need: sessions, the logged-in user, messages and CSRF
(the admin site; the API docs' pages keep them too). A JSON API request skips them: its callers
authenticate with a key or a token on every request (DRF, `adminops.authentication`), never with a
session or a cookie, and its views are CSRF-exempt (DRF's `APIView.as_view`). Run for every request,
the four cost about a tenth of a tool call's framework overhead (docs/performance.md).

Each is Django's own, run for every request outside `API_PREFIXES` as it is (with CSRF's check in
`process_view`), and passed over for the others.
"""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.middleware.csrf import CsrfViewMiddleware

# The JSON API's paths (DESIGN section 4): anything else is treated as a page.
API_PREFIXES = ("/api/v1/", "/v2/", "/oauth/", "/health")


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


class BrowserCsrfViewMiddleware(_BrowserOnly, CsrfViewMiddleware):
    def process_view(self, request, callback, callback_args, callback_kwargs):
        if is_api_path(request.path_info):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class BrowserAuthenticationMiddleware(_BrowserOnly, AuthenticationMiddleware):
    pass


class BrowserMessageMiddleware(_BrowserOnly, MessageMiddleware):
    pass
