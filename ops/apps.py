from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "Operations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ops import jobs, stats  # noqa: F401  (register the platform's jobs and storage measure)
