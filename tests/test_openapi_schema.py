"""The OpenAPI schema generates without warnings and the docs work offline (local assets)."""

import re

import pytest
from django.core.management import call_command


def test_the_schema_generates_and_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "openapi: 3" in (tmp_path / "schema.yaml").read_text()


@pytest.mark.django_db
def test_the_schema_is_served_as_json(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/auth/token" in schema["paths"]
    assert {"JWT", "ApiKeyHeader"} <= set(schema["components"]["securitySchemes"])


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_the_docs_pages_load_their_assets_from_this_server(client, page):
    html = client.get(page).content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html)
    assert assets, html[:500]
    for asset in assets:
        assert asset.startswith("/static/"), asset
        assert client.get(asset).status_code == 200, asset
