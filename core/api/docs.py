"""The schema and the docs' pages (drf-spectacular's views), whose errors are JSON."""

from __future__ import annotations

from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from core.api.renderers import JSONRenderer


class _JsonErrors:
    """The schema and the docs' pages answer YAML or HTML; their errors (a wrong method, an Accept
    they cannot serve) are JSON like every other error of the service (DESIGN section 4)."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.status_code >= 400:
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response


class SchemaView(_JsonErrors, SpectacularAPIView):
    pass


class SwaggerView(_JsonErrors, SpectacularSwaggerView):
    pass


class RedocView(_JsonErrors, SpectacularRedocView):
    pass
