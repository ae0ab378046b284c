from django.apps import AppConfig


class ToolhubConfig(AppConfig):
    name = "toolhub"
    default_auto_field = "django.db.models.BigAutoField"
