"""What every app's management commands share: a base class, the tenant named by `--tenant`, and
output that is easy to parse (the value alone on its last line, or --json)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from core.api.errors import ApiError
from core.api.ids import prefixed_uuid
from core.models import Tenant


class OperatorCommand(BaseCommand):
    """An operator's command that reads or writes a few rows. Like Django's own `createsuperuser`
    and `changepassword`, it skips the system checks: they import the whole URL table (every API
    view, the MCP SDK) and check every tool schema again, seconds of start-up that `manage.py check`,
    `migrate` (which `make run` runs first) and the test suite spend instead."""

    requires_system_checks: list[str] = []


def command_message(exc: ApiError) -> str:
    """An API error as a command says it: the API's own messages, each after the field it names."""
    details = exc.details if isinstance(exc.details, dict) else {}
    if not details:
        return exc.message
    return "; ".join(
        f"{field}: {message}" if field != "body" else str(message) for field, message in details.items()
    )


def command_tenant(raw: str) -> Tenant:
    """The tenant `--tenant` names by its UUID; a CommandError for anything else."""
    tenant_id = prefixed_uuid(raw)
    tenant = Tenant.objects.filter(id=tenant_id).first() if tenant_id else None
    if tenant is None:
        raise CommandError(f"No tenant with id {raw!r}.")
    return tenant


def emit(command, value: str, payload: dict, *, as_json: bool, notes: list[str] | None = None) -> None:
    if as_json:
        command.stdout.write(json.dumps(payload, default=str))
        return
    for note in notes or []:
        command.stderr.write(note)
    command.stdout.write(value)
