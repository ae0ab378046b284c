from django.urls import path
from rest_framework.routers import SimpleRouter

from vault.apis import credentials, dek

router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("api/v1/credentials", credentials.CredentialViewSet, basename="credentials")

# Order matters: the router's `credentials/{integrationId}/details` and `.../rotate` come before the
# generic `{integrationId}/{credentialId}` pair.
urlpatterns = [
    *router.urls,
    path(
        "api/v1/credentials/<str:credential_id>/rotate",
        credentials.CredentialRotateApi.as_view(),
        name="credential-rotate",
    ),
    path(
        "api/v1/credentials/<str:integration_id>/<str:credential_id>",
        credentials.CredentialItemApi.as_view(),
        name="credential-item",
    ),
    path("api/v1/admin/dek/rotate", dek.DekRotateApi.as_view(), name="dek-rotate"),
    path(
        "api/v1/admin/dek/rotations/<str:rotation_id>",
        dek.DekRotationStatusApi.as_view(),
        name="dek-rotation",
    ),
]
