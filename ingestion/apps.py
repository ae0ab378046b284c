from django.apps import AppConfig


class IngestionConfig(AppConfig):
    name = "ingestion"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ingestion import health, jobs, seeding  # noqa: F401  (register the job and the seed hook)

        health.register()
