from django.apps import AppConfig


class IdentityConfig(AppConfig):
    name = "identity"
    verbose_name = "Identity and access"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed
        from django.db.models.signals import post_delete, post_save

        # Registers the jobs and the usage report's section of this app.
        from identity import authcache, jobs, reports, signin  # noqa: F401
        from identity.models import ApiKey

        post_save.connect(authcache.on_save, sender=ApiKey, dispatch_uid="authcache-save-ApiKey")
        post_delete.connect(authcache.on_delete, sender=ApiKey, dispatch_uid="authcache-del-ApiKey")
        user_logged_in.connect(signin.on_signed_in, dispatch_uid="identity-signed-in")
        user_login_failed.connect(signin.on_sign_in_failed, dispatch_uid="identity-sign-in-failed")
