"""Identity realms: /api/v1/admin/realms (create, list) and /api/v1/admin/realms/{realmId} (get,
update, delete), DESIGN section 17."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers

from core.access import ADMIN
from core.api.envelopes import envelope
from core.api.fields import HTTPS_URL_PATTERN, StrictCharField
from core.api.ids import path_id
from core.api.schema import closed_input, v1_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantViewSet
from core.audit import actor_of
from core.models import Role
from identity.apis.fields import PAGE_PARAMETERS, obj, page_envelope, text, when
from identity.models import IdentityRealm
from identity.realms import realm_get, realm_list
from identity.services import realms as svc


class RealmRecordSerializer(serializers.Serializer):
    id = text(help_text="realm-<uuid>")
    name = text()
    issuer = text()
    audience = text()
    jwksUrl = text(allow_null=True, help_text="Null: read from the issuer's discovery document.")
    usernameClaim = text()
    rolesClaim = text()
    roleMapping = serializers.DictField(child=text(), help_text="{external role: this service's role}")
    groupsClaim = text(help_text="The token claim that names the user's groups (DESIGN section 19).")
    groupMapping = serializers.DictField(
        child=serializers.ListField(child=text()),
        help_text="{token group: [source principal, ...]}",
    )
    createdAt = when()
    createdBy = obj(allow_null=True)
    updatedAt = when()
    updatedBy = obj(allow_null=True)

    class Meta:
        ref_name = "IdentityRealmRecord"


def realm_record(realm: IdentityRealm) -> dict:
    return {
        "id": realm.public_id,
        "name": realm.name,
        "issuer": realm.issuer,
        "audience": realm.audience,
        "jwksUrl": realm.jwks_url or None,
        "usernameClaim": realm.username_claim,
        "rolesClaim": realm.roles_claim,
        "roleMapping": dict(realm.role_mapping),
        "groupsClaim": realm.groups_claim,
        "groupMapping": {group: list(mapped) for group, mapped in realm.group_mapping.items()},
        "createdAt": iso_ms(realm.created_at),
        "createdBy": realm.created_by or None,
        "updatedAt": iso_ms(realm.updated_at),
        "updatedBy": realm.updated_by or None,
    }


def _name(**kwargs) -> serializers.CharField:
    return StrictCharField(max_length=255, **kwargs)


@extend_schema_field({"type": "string", "pattern": HTTPS_URL_PATTERN, "maxLength": 500})
class _HttpsUrlText(StrictCharField):
    """An HTTPS URL without query or fragment (the service checks it, with the outbound guard)."""


class RealmInputSerializer(serializers.Serializer):
    name = _name()
    issuer = _HttpsUrlText(max_length=500, help_text="The OpenID Connect issuer, an HTTPS URL.")
    audience = _name(help_text="The `aud` the realm's tokens must carry.")
    jwksUrl = _HttpsUrlText(
        max_length=500,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="Optional; by default the issuer's discovery document names it.",
    )
    usernameClaim = _name(required=False, default="preferred_username")
    rolesClaim = _name(required=False, default="roles", help_text="A claim name or a dotted path.")
    roleMapping = serializers.DictField(
        child=serializers.ChoiceField(choices=Role.values),
        help_text="{external role: this service's role}; external roles not named are ignored.",
    )
    groupsClaim = _name(
        required=False,
        default="groups",
        help_text="The claim that names the user's groups (a claim name or a dotted path).",
    )
    groupMapping = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(max_length=512), max_length=50),
        required=False,
        default=dict,
        help_text="{token group: [source principal, ...]}: a token group named here stands for these "
        "principals (everyone, user:<email>, group:<platform>:<id>); any other matches the groups of "
        "that id on every platform.",
    )

    class Meta:
        ref_name = "IdentityRealmInput"


@closed_input
class RealmUpdateSerializer(RealmInputSerializer):
    """Every field optional; `roleMapping` is replaced whole."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False
            field.default = serializers.empty

    class Meta:
        ref_name = "IdentityRealmUpdateInput"


@extend_schema(tags=["admin"])
class RealmViewSet(TenantViewSet):
    # /api/v1/admin/realms and /api/v1/admin/realms/{realmId}.
    lookup_url_kwarg = "realm_id"
    access = ADMIN

    def get_object(self) -> IdentityRealm:
        return realm_get(
            tenant=self.tenant, realm_id=path_id(self.kwargs["realm_id"], name="realmId", prefix="realm-")
        )

    @extend_schema(
        operation_id="admin_realms_list",
        summary="List the tenant's identity realms",
        parameters=PAGE_PARAMETERS,
        responses={
            200: page_envelope(
                "IdentityRealmListEnvelope", "IdentityRealmList", "realms", RealmRecordSerializer(many=True)
            )
        },
    )
    def list(self, request):
        return self.page(realm_list(tenant=self.tenant), "realms", realm_record)

    @extend_schema(
        operation_id="admin_realms_create",
        summary="Register an identity realm",
        request=RealmInputSerializer,
        responses={200: v1_envelope("IdentityRealmCreateEnvelope", RealmRecordSerializer())},
    )
    def create(self, request):
        data = validated(RealmInputSerializer, request.data)
        realm = svc.realm_create(
            tenant=self.tenant, values=dict(data), actor=actor_of(request), request_id=request.request_id
        )
        return envelope(realm_record(realm), message="Identity realm created.")

    @extend_schema(
        operation_id="admin_realms_get",
        summary="Get an identity realm",
        responses={200: v1_envelope("IdentityRealmEnvelope", RealmRecordSerializer())},
    )
    def retrieve(self, request, realm_id: str):
        return envelope(realm_record(self.get_object()), message="Identity realm retrieved.")

    @extend_schema(
        operation_id="admin_realms_update",
        summary="Update an identity realm",
        request=RealmUpdateSerializer,
        responses={200: v1_envelope("IdentityRealmUpdateEnvelope", RealmRecordSerializer())},
    )
    def partial_update(self, request, realm_id: str):
        realm = self.get_object()
        data = validated(RealmUpdateSerializer, request.data, reject_unknown=True)
        realm = svc.realm_update(
            realm=realm, changes=dict(data), actor=actor_of(request), request_id=request.request_id
        )
        return envelope(realm_record(realm), message="Identity realm updated.")

    @extend_schema(
        operation_id="admin_realms_delete",
        summary="Delete an identity realm",
        responses={200: v1_envelope("IdentityRealmDeleteEnvelope", obj())},
    )
    def destroy(self, request, realm_id: str):
        outcome = svc.realm_delete(
            realm=self.get_object(), actor=actor_of(request), request_id=request.request_id
        )
        return envelope(
            outcome | {"deletedAt": iso_ms(outcome["deletedAt"])}, message="Identity realm deleted."
        )
