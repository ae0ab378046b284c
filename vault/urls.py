from django.urls import path

from vault.apis import credentials, dek

# Order matters: the two fixed second segments (`details`, `rotate`) come before the generic
# `{integrationId}/{credentialId}` pair.
urlpatterns = [
    path("credentials", credentials.CredentialCollectionApi.as_view(), name="credentials"),
    path(
        "credentials/<str:integration_id>/details",
        credentials.CredentialDetailsApi.as_view(),
        name="credential-details",
    ),
    path(
        "credentials/<str:credential_id>/rotate",
        credentials.CredentialRotateApi.as_view(),
        name="credential-rotate",
    ),
    path(
        "credentials/<str:integration_id>/<str:credential_id>",
        credentials.CredentialItemApi.as_view(),
        name="credential-item",
    ),
    path(
        "credentials/<str:integration_id>",
        credentials.CredentialSecretsApi.as_view(),
        name="credential-secrets",
    ),
    path("admin/dek/rotate", dek.DekRotateApi.as_view(), name="dek-rotate"),
    path("admin/dek/rotations/<str:rotation_id>", dek.DekRotationStatusApi.as_view(), name="dek-rotation"),
]
