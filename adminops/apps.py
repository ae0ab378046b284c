from django.apps import AppConfig


class AdminopsConfig(AppConfig):
    name = "adminops"
    verbose_name = "Administration"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from adminops import jobs  # noqa: F401  (registers the job implementations)
