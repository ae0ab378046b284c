"""The sign-in pages: the console's (`/admin/login/`) and the OAuth provider's (`/oauth/login`). They
count attempts as the API's token endpoints do, per address and per username (RATE_LIMIT_LOGIN),
and answer a page with 429 and `Retry-After` once the limit is spent; every attempt is audited with
its channel (USER_LOGIN / USER_LOGIN_FAILED, through django.contrib.auth's signals)."""

from __future__ import annotations

import functools

from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.template.response import TemplateResponse

from core.api.errors import RateLimited
from core.audit import client_ip
from identity.services.users import session_sign_in_audit, sign_in_rate_limit

CHANNELS = (("/oauth/", "oauth"), ("/admin/", "console"))


def _throttled(view):
    @functools.wraps(view)  # keeps a class-based view's `view_class`, which route listings read
    def sign_in(request, *args, **kwargs):
        if request.method == "POST":
            try:
                sign_in_rate_limit(
                    ip_address=client_ip(request), username=request.POST.get("username", "")[:150]
                )
            except RateLimited as exc:
                page = TemplateResponse(request, "sign_in_throttled.html", {"wait": exc.wait}, status=429)
                page["Retry-After"] = str(max(1, int(exc.wait)))
                return page
        return view(request, *args, **kwargs)

    return sign_in


console_sign_in = _throttled(admin.site.login)
oauth_sign_in = _throttled(LoginView.as_view(template_name="oauth/login.html"))


def _channel(request) -> str | None:
    """The page a sign-in came from; None for the API, whose token endpoint audits its own."""
    path = getattr(request, "path", "")
    return next((channel for prefix, channel in CHANNELS if path.startswith(prefix)), None)


def on_signed_in(sender, request, user, **kwargs) -> None:
    """user_logged_in receiver (connected in IdentityConfig.ready)."""
    channel = _channel(request)
    if channel:
        session_sign_in_audit(
            user=user, username=user.get_username(), channel=channel, ip_address=client_ip(request)
        )


def on_sign_in_failed(sender, credentials, request=None, **kwargs) -> None:
    """user_login_failed receiver (connected in IdentityConfig.ready)."""
    channel = _channel(request)
    if channel:
        username = str(credentials.get("username", ""))[:150]
        session_sign_in_audit(user=None, username=username, channel=channel, ip_address=client_ip(request))
