from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Tenants and audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from core import audit
        from core.models import TENANTS, Tenant

        def tenant_changed(sender, **kwargs) -> None:
            TENANTS.invalidate()

        post_save.connect(tenant_changed, sender=Tenant, dispatch_uid="core-tenants-save", weak=False)
        post_delete.connect(tenant_changed, sender=Tenant, dispatch_uid="core-tenants-delete", weak=False)
        post_save.connect(audit.on_tenant_created, sender=Tenant, dispatch_uid="audit-chains-open")
