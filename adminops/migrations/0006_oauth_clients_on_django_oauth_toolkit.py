"""OAuth clients become django-oauth-toolkit's application model (OAUTH2_PROVIDER_APPLICATION_MODEL).

Secrets keep their keyed hashes under the `oauth_keyed` hasher (adminops/hashers.py), so issued
client secrets keep working; each service account gets a client-credentials client of its own with
its existing client id and secret. Runs before the library's first migration, whose tables point
at this model."""

import django.db.models.deletion
import django.utils.timezone
import oauth2_provider.generators
import oauth2_provider.models
from django.conf import settings
from django.db import migrations, models


def secrets_to_the_library(apps, schema_editor):
    OAuthClient = apps.get_model("adminops", "OAuthClient")
    ServiceAccount = apps.get_model("adminops", "ServiceAccount")
    for client in OAuthClient.objects.all():
        client.client_secret = f"oauth_keyed${client.secret_hash}" if client.secret_hash else ""
        client.hash_client_secret = bool(client.secret_hash)
        client.save(update_fields=["client_secret", "hash_client_secret"])
    scopes = {"api:read": ["vault:read", "knowledge:read", "tools:read"],
              "api:write": ["vault:write", "knowledge:write", "tools:execute"]}  # fmt: skip
    for account in ServiceAccount.objects.all():
        account.oauth_client = OAuthClient.objects.create(
            tenant_id=account.tenant_id,
            name=account.client_id,
            client_id=account.client_id,
            client_secret=f"oauth_keyed${account.secret_hash}",
            client_type="confidential",
            grant_types=["client_credentials"],
            scopes=[s for p in account.permissions for s in scopes.get(p, [])],
            status="active" if account.status == "active" else "inactive",
            created_by=account.created_by,
        )
        account.save(update_fields=["oauth_client"])


class Migration(migrations.Migration):

    dependencies = [
        ('adminops', '0005_identity_realm'),
    ]
    run_before = [
        ('oauth2_provider', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='oauthclient',
            name='algorithm',
            field=models.CharField(blank=True, choices=[('', 'No OIDC support'), ('RS256', 'RSA with SHA-2 256'), ('HS256', 'HMAC with SHA-2 256')], default='', max_length=5, verbose_name='algorithm'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='cimd_expires_at',
            field=models.DateTimeField(blank=True, default=None, help_text='When the cached Client ID Metadata Document should be re-fetched', null=True, verbose_name='CIMD expires at'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='client_secret',
            field=oauth2_provider.models.ClientSecretField(blank=True, db_index=True, default=oauth2_provider.generators.generate_client_secret, help_text='Client secret for authentication', max_length=255, verbose_name='client secret'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='created',
            field=models.DateTimeField(auto_now_add=True, default=django.utils.timezone.now, verbose_name='created'),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='hash_client_secret',
            field=models.BooleanField(default=True, verbose_name='hash client secret'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='post_logout_redirect_uris',
            field=models.TextField(blank=True, default='', help_text='Allowed Post Logout URIs list, space separated', verbose_name='post logout redirect URIs'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='registration_source',
            field=models.CharField(choices=[('manual', 'Manual'), ('dcr', 'Dynamic Client Registration'), ('cimd', 'Client ID Metadata Document')], default='manual', help_text='How this application was registered (manual, DCR per RFC 7591, or CIMD)', max_length=32, verbose_name='registration source'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='skip_authorization',
            field=models.BooleanField(default=False, verbose_name='skip authorization'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='token_settings',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='updated',
            field=models.DateTimeField(auto_now=True, verbose_name='updated'),
        ),
        migrations.AddField(
            model_name='oauthclient',
            name='user',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='%(app_label)s_%(class)s', to=settings.AUTH_USER_MODEL, verbose_name='user'),
        ),
        migrations.AddField(
            model_name='serviceaccount',
            name='oauth_client',
            field=models.OneToOneField(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='service_account', to=settings.OAUTH2_PROVIDER_APPLICATION_MODEL),
        ),
        migrations.RunPython(secrets_to_the_library, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='oauthclient',
            name='secret_hash',
        ),
        migrations.RemoveField(
            model_name='serviceaccount',
            name='client_id',
        ),
        migrations.RemoveField(
            model_name='serviceaccount',
            name='secret_hash',
        ),
        migrations.AlterField(
            model_name='serviceaccount',
            name='oauth_client',
            field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='service_account', to=settings.OAUTH2_PROVIDER_APPLICATION_MODEL),
        ),
        # Issued access tokens were stored as keyed hashes the library cannot read; they lived an
        # hour at most, and clients ask again.
        migrations.DeleteModel(
            name='OAuthAccessToken',
        ),
    ]
