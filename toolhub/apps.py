from django.apps import AppConfig
from django.core import checks


class ToolhubConfig(AppConfig):
    name = "toolhub"
    verbose_name = "Tool hub"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing the tool modules registers (and checks) every tool: a bad schema stops start-up.
        from django.db.models.signals import post_delete, post_save

        from core.models import Tenant
        from identity.services.api_keys import pinned_connections_check_register
        from toolhub import jobs, reports, routing, seeding, tools  # noqa: F401  (registers tools, jobs, report section, demo data)
        from toolhub.models import ApprovalPolicy, Connection
        from toolhub.selectors import connection_pins_check, connections_using
        from vault.usage import credential_usage_register

        checks.register(registry_check, "toolhub")
        pinned_connections_check_register(connection_pins_check)
        credential_usage_register(connections_using)
        for model in (Connection, ApprovalPolicy, Tenant):
            for signal in (post_save, post_delete):
                signal.connect(routing.on_change, sender=model, dispatch_uid=f"hub-routes-{model.__name__}")


def registry_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from toolhub.registry import registry_problems

    return [checks.Error(problem, id="toolhub.E001") for problem in registry_problems()]
