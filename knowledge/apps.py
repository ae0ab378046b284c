from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge base"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core.health import health_check_register
        from knowledge import seeding  # noqa: F401  (registers the demo source rules)
        from knowledge.embeddings import embedding_model_probe

        health_check_register("embeddings", embedding_model_probe)
