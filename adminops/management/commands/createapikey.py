from django.core.management.base import BaseCommand, CommandError

from adminops.audit import system_actor
from adminops.management.commands._output import emit
from adminops.models import Tenant
from adminops.services import api_key_create


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
        from adminops.management.commands.createtenantuser import _is_uuid

        tenant = Tenant.objects.filter(id=options["tenant"]).first() if _is_uuid(options["tenant"]) else None
        if tenant is None:
            raise CommandError(f"No tenant with id {options['tenant']!r}.")
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
