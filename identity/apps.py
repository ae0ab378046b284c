from django.apps import AppConfig


class IdentityConfig(AppConfig):
    name = "identity"
    verbose_name = "Identity and access"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        # Registers the jobs and the usage report's section of this app.
        from identity import authcache, jobs, reports  # noqa: F401
        from identity.models import ApiKey

        post_save.connect(authcache.on_save, sender=ApiKey, dispatch_uid="authcache-save-ApiKey")
        post_delete.connect(authcache.on_delete, sender=ApiKey, dispatch_uid="authcache-del-ApiKey")
