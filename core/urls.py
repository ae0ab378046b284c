"""The API's documents, and the answer to every path no app serves. Included last by config.urls:
the catch-all below is a JSON 404 in the shape of its prefix whatever the method (also with DEBUG
on)."""

from django.urls import path, re_path

from core.api import handlers
from core.api.docs import RedocView, SchemaView, SwaggerView

urlpatterns = [
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/docs/", SwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", RedocView.as_view(url_name="schema"), name="redoc"),
    re_path(r"^.*$", handlers.not_found),
]
