from django.core.management.base import BaseCommand, CommandError

from core.audit import system_actor
from core.commands import command_tenant, emit
from identity.services.users import api_key_create


class Command(BaseCommand):
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
        if tenant.api_keys.filter(name=options["name"]).exists():
            raise CommandError(f"The tenant already has an API key named {options['name']!r}.")
        key, raw = api_key_create(
            tenant=tenant,
            name=options["name"],
            scopes=options["scope"] or ["*"],
            tool_patterns=options["tools"],
            environment=options["environment"],
            actor=system_actor("createapikey"),
        )
        payload = {"id": key.id, "name": key.name, "apiKey": raw, "prefix": key.prefix, "scopes": key.scopes}
        emit(self, raw, payload, as_json=options["json"])
