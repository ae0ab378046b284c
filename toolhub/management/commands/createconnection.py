import json

from django.core.management.base import CommandError

from core.api.errors import ApiError
from core.audit import system_actor
from core.commands import OperatorCommand, command_message, command_tenant, emit
from toolhub.services.connections import connection_create


class Command(OperatorCommand):
    help = (
        "Create a tool connection (the fields of POST /api/v1/connections); prints its id (conn_…) alone "
        "on the last line (or --json)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="tenant UUID")
        parser.add_argument("--name", required=True)
        parser.add_argument("--domain", required=True, help="itsm, wiki, documents, itdocs or knowledge")
        parser.add_argument(
            "--connector", required=True, help="itsmplatform, wikispace, sitelib, itdocs or knowledge"
        )
        parser.add_argument("--base-url", default="", help="the vendor's URL (not for knowledge)")
        parser.add_argument(
            "--integration-id", default="", help="the tenant's vault integrationId (not for knowledge)"
        )
        default = parser.add_mutually_exclusive_group()
        default.add_argument("--default", dest="is_default", action="store_true", default=None)
        default.add_argument("--no-default", dest="is_default", action="store_false")
        parser.add_argument(
            "--setting",
            action="append",
            default=[],
            help="KEY=VALUE (JSON value, e.g. read_timeout=10); repeat",
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        tenant = command_tenant(options["tenant"])
        try:
            connection = connection_create(
                tenant=tenant,
                actor=system_actor("createconnection"),
                name=options["name"],
                domain=options["domain"],
                connector=options["connector"],
                base_url=options["base_url"],
                integration_id=options["integration_id"],
                is_default=options["is_default"],
                settings=_settings(options["setting"]),
            )
        except ApiError as exc:
            raise CommandError(command_message(exc)) from None
        payload = {"id": connection.public_id, "name": connection.name, "is_default": connection.is_default}
        emit(self, connection.public_id, payload, as_json=options["json"])


def _settings(pairs: list[str]) -> dict:
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"--setting takes KEY=VALUE, not {pair!r}.")
        try:
            settings[key] = json.loads(value)
        except ValueError:
            settings[key] = value
    return settings
