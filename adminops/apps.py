from django.apps import AppConfig


class AdminopsConfig(AppConfig):
    name = "adminops"
    verbose_name = "Tenants, access and audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from adminops import (
            audit,
            authcache,
            jobs,  # noqa: F401  (registers the job implementations)
        )
        from adminops.models import ApiKey, Tenant

        for model in (ApiKey, Tenant):
            post_save.connect(
                authcache.on_save, sender=model, dispatch_uid=f"authcache-save-{model.__name__}"
            )
            post_delete.connect(
                authcache.on_delete, sender=model, dispatch_uid=f"authcache-del-{model.__name__}"
            )
        post_save.connect(audit.on_tenant_created, sender=Tenant, dispatch_uid="audit-chains-open")
