from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = "Vendor integrations"
    default_auto_field = "django.db.models.BigAutoField"
