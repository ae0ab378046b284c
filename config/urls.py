"""The one URL table: each app's `urls.py` holds all of its paths, whatever their prefix, so a URL
leads to its code in one hop. No path matches patterns of two apps, so their order only decides how
many patterns a request passes before its own: the busiest first, and core's catch-all last."""

from django.conf import settings
from django.urls import include, path

urlpatterns = [
    path("", include("vault.urls")),
    path("", include("toolhub.urls")),
    path("", include("identity.urls")),
    path("", include("ops.urls")),
    path("", include("ingestion.urls")),
    path("", include("knowledge.urls")),
    *([path("", include("bench.views"))] if settings.BENCH_ENDPOINTS else []),
    path("", include("core.urls")),
]

handler400 = "core.api.handlers.bad_request"
handler403 = "core.api.handlers.permission_denied"
handler404 = "core.api.handlers.not_found"
handler500 = "core.api.handlers.server_error"
