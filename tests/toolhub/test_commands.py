"""createconnection: the fields of POST /api/v1/connections as flags."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.toolhub.support import make_credential
from toolhub.models import Connection


def _run(*args) -> str:
    out = io.StringIO()
    call_command("createconnection", *args, stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def test_it_creates_a_connection_and_prints_its_id(tenant, loopback):
    make_credential(tenant, "itdocs-prod-001", access_token="k")
    printed = _run(
        "--tenant",
        str(tenant.id),
        "--name",
        "docs",
        "--domain",
        "itdocs",
        "--connector",
        "itdocs",
        "--base-url",
        "https://itdocs.example.test",
        "--integration-id",
        "itdocs-prod-001",
        "--setting",
        "read_timeout=10",
    )
    connection = Connection.objects.get()
    assert printed == connection.public_id
    assert connection.is_default and connection.settings == {"read_timeout": 10}


def test_it_speaks_json(tenant, loopback):
    make_credential(tenant, "w", access_token="k")
    printed = _run(
        "--tenant",
        str(tenant.id),
        "--name",
        "wiki",
        "--domain",
        "wiki",
        "--connector",
        "wikispace",
        "--base-url",
        "https://acme.example.test/wiki",
        "--integration-id",
        "w",
        "--no-default",
        "--json",
    )
    assert json.loads(printed)["is_default"] is False


def test_it_explains_a_refusal(tenant):
    with pytest.raises(CommandError, match="integrationId"):
        _run(
            "--tenant",
            str(tenant.id),
            "--name",
            "x",
            "--domain",
            "itdocs",
            "--connector",
            "itdocs",
            "--base-url",
            "https://x.example.test",
            "--integration-id",
            "missing",
        )
    with pytest.raises(CommandError, match="No tenant"):
        _run(
            "--tenant",
            "nope",
            "--name",
            "x",
            "--domain",
            "itdocs",
            "--connector",
            "itdocs",
            "--base-url",
            "https://x.example.test",
            "--integration-id",
            "missing",
        )
