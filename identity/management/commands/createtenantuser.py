from django.core.management.base import CommandError

from core.api.errors import ApiError
from core.commands import OperatorCommand, command_message, command_tenant, emit
from identity.services.users import tenant_user_create


class Command(OperatorCommand):
    help = "Create a user (or reuse one by username) with roles in a tenant; prints the user id."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="tenant UUID")
        parser.add_argument("--username", required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--role", action="append", required=True, help="repeat for several roles")
        parser.add_argument("--email", default="")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        tenant = command_tenant(options["tenant"])
        try:
            user = tenant_user_create(
                tenant=tenant,
                username=options["username"],
                password=options["password"],
                roles=options["role"],
                email=options["email"],
            )
        except ApiError as exc:
            raise CommandError(command_message(exc)) from None
        payload = {
            "id": user.id,
            "username": user.username,
            "tenant": tenant.id,
            "roles": sorted(options["role"]),
        }
        emit(self, str(user.id), payload, as_json=options["json"])
