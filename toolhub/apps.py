from django.apps import AppConfig
from django.core import checks


class ToolhubConfig(AppConfig):
    name = "toolhub"
    verbose_name = "Tool hub"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing the tool modules registers (and checks) every tool: a bad schema stops start-up.
        from toolhub import jobs, seeding, tools  # noqa: F401  (registers the tools, the job, demo data)

        checks.register(registry_check, "toolhub")


def registry_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from toolhub.registry import registry_problems

    return [checks.Error(problem, id="toolhub.E001") for problem in registry_problems()]
