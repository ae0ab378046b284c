from django.core.management.base import CommandError

from core.api.errors import ApiError
from core.audit import system_actor
from core.commands import OperatorCommand, command_message, command_tenant, emit
from identity.services.api_keys import KeySpec, api_key_issue


class Command(OperatorCommand):
    help = "Create an API key; prints the key (shown this once) alone on the last line (or --json)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="tenant UUID")
        parser.add_argument("--name", required=True)
        parser.add_argument("--scope", action="append", default=[], help="repeat for several scopes")
        parser.add_argument("--tools", action="append", default=[], help="tool pattern, e.g. itsm.*")
        parser.add_argument("--environment", choices=["live", "test"], default="live")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        tenant = command_tenant(options["tenant"])
        spec = KeySpec(
            name=options["name"],
            scopes=options["scope"] or ["*"],
            tool_patterns=tuple(options["tools"]),
            environment=options["environment"],
        )
        try:  # the API's checks, the API's messages
            key, raw = api_key_issue(
                tenant=tenant, spec=spec, actor=system_actor("createapikey"), user=None, request_id=""
            )
        except ApiError as exc:
            raise CommandError(command_message(exc)) from None
        payload = {"id": key.id, "name": key.name, "apiKey": raw, "prefix": key.prefix, "scopes": key.scopes}
        emit(self, raw, payload, as_json=options["json"])
