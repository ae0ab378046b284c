from django.apps import AppConfig


class IngestionConfig(AppConfig):
    name = "ingestion"
    verbose_name = "Ingestion"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from core.models import Tenant

        # jobs, reports, seeding: register the job, the report section, the storage measure and the
        # seed hook.
        from identity.sources import group_lookup_register
        from ingestion import health, jobs, reports, seeding  # noqa: F401
        from ingestion.permissions import member_groups
        from ingestion.selectors import configurations_using
        from ingestion.services.failed_files import on_tenant_deleted
        from vault.usage import credential_usage_register

        health.register()
        group_lookup_register(member_groups)
        credential_usage_register(configurations_using)
        post_delete.connect(on_tenant_deleted, sender=Tenant, dispatch_uid="ingestion-forget-tenant")
