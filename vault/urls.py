from django.urls import path
from rest_framework.routers import SimpleRouter

from vault.apis import credentials, dek

router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("credentials", credentials.CredentialViewSet, basename="credentials")

# Order matters: the router's `credentials/{integrationId}/details` and `.../rotate` come before the
# generic `{integrationId}/{credentialId}` pair.
urlpatterns = [
    *router.urls,
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
    path("admin/dek/rotate", dek.DekRotateApi.as_view(), name="dek-rotate"),
    path("admin/dek/rotations/<str:rotation_id>", dek.DekRotationStatusApi.as_view(), name="dek-rotation"),
]
