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


# ---- the docs' sections: ReDoc titles an operation by its summary (else its raw id) and shows one
# section per tag (its description as the section's text)


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_every_operation_has_a_summary_and_a_declared_tag(schema):
    declared = {tag["name"] for tag in schema.get("tags", [])}
    problems = []
    for name, operation in _operations(schema):
        if not operation.get("summary"):
            problems.append(f"{name} ({operation['operationId']}): no summary")
        if not operation.get("tags") or not set(operation["tags"]) <= declared:
            problems.append(f"{name}: tags {operation.get('tags')} not among {sorted(declared)}")
    assert not problems, "\n".join(problems)


def test_every_tag_has_a_description_and_operations(schema):
    used = {tag for _name, operation in _operations(schema) for tag in operation.get("tags", [])}
    assert schema.get("tags"), 'no tags declared (SPECTACULAR_SETTINGS["TAGS"])'
    for tag in schema["tags"]:
        assert tag.get("description"), tag
        assert tag["name"] in used, f"tag {tag['name']} has no operation: an empty section"


def test_the_docs_speak_to_clients_not_to_the_code(schema):
    """No operation or answer describes itself with a source file or an internal note."""
    texts = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            texts.append((f"{method} {path}", operation.get("description", "")))
            texts += [
                (f"{method} {path} {code}", r.get("description", ""))
                for code, r in operation["responses"].items()
            ]
    leaks = [
        (where, text) for where, text in texts if re.search(r"\w\.py\b|Listed on purpose|docstring", text)
    ]
    assert leaks == []
