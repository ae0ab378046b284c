from django.apps import AppConfig


class VaultConfig(AppConfig):
    name = "vault"
    verbose_name = "Credential vault"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from vault import checks, jobs, keyring, seeding  # noqa: F401  (registers checks, jobs, demo data)

        # A malformed VAULT_MASTER_KEYS stops every process at start-up (ImproperlyConfigured);
        # a wrong key stops `migrate` (checks.py) and answers 503 on first use (keyring.py).
        keyring.master_keys()
