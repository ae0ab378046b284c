"""/v2 knowledge-source listings (api-spec parts 3 and 5, named-endpoints 7.4). Thin views: parse,
call a service, shape. Errors render in the /v2 shapes by path prefix."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.access import KNOWLEDGE_READ
from core.api.envelopes import v2_response
from core.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    UntrimmedText,
    UrlField,
)
from core.api.schema import v2_envelope
from core.api.validation import validated
from core.api.views import TenantAPIView
from integrations.itsm import ItsmCredentials
from integrations.sitelib.models import SitelibCredentials, cloud_tid_valid, thumbprint_valid
from knowledge.apis import (
    MAX_ITEMS,
    ContentRestrictionSerializer,
    ItsmInstanceField,
    string_list,
)
from knowledge.services import SitelibQuery, itsm_kb_listing, sitelib_listing, wiki_space_listing

# ---- sitelib


class SitelibAuthorizationSerializer(serializers.Serializer):
    cloud_tid = StrictCharField(max_length=255)
    client_id = StrictCharField(max_length=255)
    client_secret = UntrimmedText(max_length=4096, allow_blank=True)
    thumbprint = StrictCharField(max_length=128, required=False, allow_blank=True, default="")
    key = UntrimmedText(max_length=16384, required=False, allow_blank=True, default="")
    sitelib_auth = StrictBooleanField(required=False)

    class Meta:
        ref_name = "SitelibAuthorization"

    def validate_cloud_tid(self, value: str) -> str:
        if not cloud_tid_valid(value):
            raise serializers.ValidationError("must be a directory tenant GUID or domain name")
        return value

    def validate_thumbprint(self, value: str) -> str:
        if value and not thumbprint_valid(value):
            raise serializers.ValidationError("must be a SHA-1 thumbprint (40 hex digits)")
        return value

    def validate(self, attrs):
        certificate = bool(attrs.get("thumbprint")) or bool(attrs.get("key"))
        if certificate and not (attrs.get("thumbprint") and attrs.get("key")):
            missing = "key" if attrs.get("thumbprint") else "thumbprint"
            raise serializers.ValidationError(
                {missing: ["certificate authentication needs both thumbprint and key"]}
            )
        if not certificate and not attrs.get("client_secret"):
            raise serializers.ValidationError(
                {"client_secret": ["a client secret or a certificate (thumbprint and key) is required"]}
            )
        return attrs


class SitelibListingInput(serializers.Serializer):
    authorization = SitelibAuthorizationSerializer()
    site_urls = serializers.ListField(child=UrlField(), required=False, default=list, max_length=MAX_ITEMS)
    sub_sites = string_list()
    drives = string_list()
    folders = string_list(help_text="Folder names, ids or server-relative paths; `*` for every root folder.")
    content_restriction = ContentRestrictionSerializer(required=False)
    blacklisted = StrictBooleanField(required=False, default=False)
    source_restriction = StrictBooleanField(required=False, default=False)
    sitelib_auth = StrictBooleanField(required=False)

    class Meta:
        ref_name = "SitelibListingInput"

    def validate(self, attrs):
        # Accepted inside `authorization` (the listing page) and at the top level (the upload pages).
        if "sitelib_auth" not in attrs and "sitelib_auth" not in attrs["authorization"]:
            raise serializers.ValidationError(
                {
                    "authorization": {
                        "sitelib_auth": [serializers.ErrorDetail("field required", code="required")]
                    }
                }
            )
        return attrs


DriveOut = inline_serializer(
    name="SitelibDrive",
    fields={
        "id": StrictCharField(),
        "name": StrictCharField(),
        "driveType": StrictCharField(),
        "folders": inline_serializer(
            name="SitelibFolder",
            many=True,
            required=False,
            fields={
                "id": StrictCharField(),
                "name": StrictCharField(),
                "path": StrictCharField(),
                "webUrl": StrictCharField(),
                "childCount": StrictIntegerField(),
            },
        ),
    },
    many=True,
)
SiteOut = inline_serializer(
    name="SitelibSite",
    many=True,
    fields={
        "id": StrictCharField(),
        "name": StrictCharField(),
        "url": StrictCharField(),
        "drives": DriveOut,
    },
)


class SitelibListingApi(TenantAPIView):
    access = KNOWLEDGE_READ

    @extend_schema(
        operation_id="sitelib_listing",
        summary="List document sites, their drives and sub-sites",
        request=SitelibListingInput,
        responses={
            200: v2_envelope(
                "SitelibListingEnvelope",
                inline_serializer(
                    name="SitelibListing", fields={"sites": SiteOut, "total": StrictIntegerField()}
                ),
            )
        },
        tags=["knowledge"],
        description="Sites (and sub-sites), their drives and, when `folders` is given, the matching "
        "root folders of each drive. Credentials are used for this call only.",
    )
    def post(self, request):
        data = validated(SitelibListingInput, request.data)
        auth = data["authorization"]
        restriction = data.get("content_restriction") or {}
        credentials = SitelibCredentials(
            cloud_tid=auth["cloud_tid"],
            client_id=auth["client_id"],
            client_secret=auth["client_secret"],
            thumbprint=auth["thumbprint"],
            private_key=auth["key"],
        )
        query = SitelibQuery(
            site_urls=data["site_urls"],
            sub_sites=data["sub_sites"],
            drives=data["drives"],
            folders=data["folders"],
            audience=restriction.get("audience") or [],
            blacklisted=data["blacklisted"] or restriction.get("blacklisted", False),
            source_restriction=data["source_restriction"] or restriction.get("source_restriction", False),
        )
        sites = sitelib_listing(tenant=self.tenant, credentials=credentials, query=query)
        return v2_response({"sites": sites, "total": len(sites)})


# ---- wiki


class WikiSpaceListingInput(serializers.Serializer):
    instance_url = UrlField(help_text="The wiki's base, e.g. https://<site>/wiki.")
    web_url_instance = UrlField()
    username = StrictCharField(max_length=255)
    api_token = UntrimmedText(max_length=4096)

    class Meta:
        ref_name = "WikiSpaceListingInput"


SpacesOut = inline_serializer(
    name="WikiSpaceListing",
    fields={
        "spaces": inline_serializer(
            name="WikiSpace",
            many=True,
            fields={
                "key": StrictCharField(),
                "name": StrictCharField(),
                "type": StrictChoiceField(choices=["global", "personal"]),
                "status": StrictCharField(),
            },
        )
    },
)


class WikiSpaceListingApi(TenantAPIView):
    access = KNOWLEDGE_READ

    @extend_schema(
        operation_id="wikispace_space_listing",
        summary="List the wiki's spaces",
        request=WikiSpaceListingInput,
        responses={200: SpacesOut},
        tags=["knowledge"],
        description="Spaces the wiki account can see. Answers the bare object `{spaces: [...]}`.",
    )
    def post(self, request):
        data = validated(WikiSpaceListingInput, request.data)
        spaces = wiki_space_listing(
            instance_url=data["instance_url"], username=data["username"], api_token=data["api_token"]
        )
        return Response({"spaces": spaces})


# ---- ITSM


class ItsmKbListingInput(serializers.Serializer):
    username = StrictCharField(max_length=255)
    password = UntrimmedText(max_length=4096)
    client_id = StrictCharField(max_length=255)
    client_secret = UntrimmedText(max_length=4096)
    refresh_token = UntrimmedText(max_length=16384, allow_blank=True)
    itsmplatform_domain = ItsmInstanceField()

    class Meta:
        ref_name = "ItsmKbListingInput"


KbOut = inline_serializer(
    name="ItsmKnowledgeBases",
    fields={
        "knowledge_bases": inline_serializer(
            name="ItsmKnowledgeBase",
            many=True,
            fields={
                "sys_id": StrictCharField(),
                "title": StrictCharField(),
                "description": StrictCharField(),
                "article_count": StrictIntegerField(),
                "active": StrictBooleanField(),
            },
        ),
        "total": StrictIntegerField(),
    },
)


class ItsmKbListingApi(TenantAPIView):
    access = KNOWLEDGE_READ

    @extend_schema(
        operation_id="itsmplatform_kb_listing",
        summary="List the ITSM instance's knowledge bases",
        request=ItsmKbListingInput,
        responses={200: v2_envelope("ItsmKbListingEnvelope", KbOut)},
        tags=["knowledge"],
        description="Knowledge bases of the ITSM instance with their article counts.",
    )
    def post(self, request):
        data = validated(ItsmKbListingInput, request.data)
        credentials = ItsmCredentials(
            username=data["username"],
            password=data["password"],
            client_id=data["client_id"],
            client_secret=data["client_secret"],
            refresh_token=data["refresh_token"],
        )
        bases = itsm_kb_listing(instance=data["itsmplatform_domain"], credentials=credentials)
        return v2_response({"knowledge_bases": bases, "total": len(bases)})
