from django.core.management.base import CommandError

from core.api.errors import ApiError
from core.commands import OperatorCommand, command_message, emit
from identity.services.users import tenant_create


class Command(OperatorCommand):
    help = "Create a tenant; prints its UUID alone on the last line (or --json)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--domain", default="")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            tenant = tenant_create(name=options["name"], domain=options["domain"])
        except ApiError as exc:
            raise CommandError(command_message(exc)) from None
        emit(
            self,
            str(tenant.id),
            {"id": tenant.id, "name": tenant.name, "domain": tenant.domain},
            as_json=options["json"],
        )
