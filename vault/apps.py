from django.apps import AppConfig


class VaultConfig(AppConfig):
    name = "vault"
    verbose_name = "Credential vault"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from vault import caches, checks, jobs, keyring, reports, seeding  # noqa: F401  (registers checks, jobs, report sections, demo data)
        from vault.models import Credential, DataKey

        post_save.connect(caches.on_save, sender=Credential, dispatch_uid="vault-use-save")
        post_delete.connect(caches.on_delete, sender=Credential, dispatch_uid="vault-use-delete")
        post_save.connect(keyring.on_data_key_write, sender=DataKey, dispatch_uid="vault-dek-save")
        post_delete.connect(keyring.on_data_key_write, sender=DataKey, dispatch_uid="vault-dek-delete")

        # A malformed VAULT_MASTER_KEYS stops every process at start-up (ImproperlyConfigured);
        # a wrong key stops `migrate` (checks.py) and answers 503 on first use (keyring.py).
        keyring.master_keys()
