"""Clients that register themselves (RFC 7591): public clients of no tenant, such as the desktop
agents and IDEs that connect to /mcp with nothing but its address (docs/oauth.md)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from core.api.fields import matches_pattern
from core.audit import audit_record
from core.scopes import REGISTRABLE_SCOPES
from identity.keys import random_token
from identity.models import OAuthClient
from identity.redirects import redirect_uri_problem

CATEGORY = "oauth_clients"


class ClientMetadataInvalid(Exception):
    """A registration refused (RFC 7591 section 3.2.2): `error` is `invalid_redirect_uri` or
    `invalid_client_metadata`; `description` says why, for the client's developer."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error, self.description = error, description


REGISTRATION_GRANTS = ("authorization_code", "refresh_token")
MAX_REDIRECT_URIS = 10
# What a client name may not hold (it is shown on the consent page): control characters (C0, DEL,
# C1), separators other than the space, the format characters that hide or reorder text (soft
# hyphen, zero-width and bidirectional controls, the byte order mark), the private use area and
# the specials block. A pattern (the one the API schema states) where Python's `isprintable()`
# follows the Unicode version of the interpreter. A lone surrogate (JSON's `\ud800` escapes can
# spell one) is refused too: it is not text, and a JSON Schema pattern cannot name it.
_NAME_REFUSED = (
    "\\x00-\\x1f\\x7f-\\xa0\\xad\\u061c\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f"
    "\\u3000\\ue000-\\uf8ff\\ufeff\\ufff9-\\uffff"
)
# Up to 255 characters (the schema's maxLength), at least one other than a space.
CLIENT_NAME_PATTERN = f"^[^{_NAME_REFUSED}]*[^{_NAME_REFUSED} ][^{_NAME_REFUSED}]*$"
# `scope` as `str.split()` reads it: registrable scopes between runs of whitespace (the characters
# for which `str.isspace()` holds, spelled out: a JSON Schema `\\s` is another set).
_SPACE = "[\\t-\\r\\x1c- \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
_SCOPE = f"(?:{'|'.join(re.escape(scope) for scope in REGISTRABLE_SCOPES)})"
SCOPE_PATTERN = f"^{_SPACE}*{_SCOPE}(?:{_SPACE}+{_SCOPE})*{_SPACE}*$"


def oauth_client_register(*, metadata: dict, ip: str | None, request_id: str) -> OAuthClient:
    """A public client that registers itself (RFC 7591): it belongs to no tenant, uses the
    authorization code grant (with PKCE) for whoever allows it, and may ask them for any scope by
    name. Audited on the platform's trail."""
    fields = _registration_checked(metadata)
    client = OAuthClient.objects.create(
        tenant=None,
        client_id=random_token("client_", 18),
        client_secret="",
        hash_client_secret=False,
        client_type=OAuthClient.ClientType.PUBLIC,
        registration_source=OAuthClient.RegistrationSource.DCR,
        created_by={"type": "registration", "ipAddress": ip},
        **fields,
    )
    audit_record(
        tenant=None,
        action="OAUTH_CLIENT_REGISTERED",
        category=CATEGORY,
        actor={"type": "anonymous", "id": "", "name": "client registration", "email": "", "ipAddress": ip},
        resource={"type": "oauth_client", "id": str(client.id), "name": client.name},
        details={"clientId": client.client_id, "redirectUris": client.redirect_uris, "scopes": client.scopes},
        request_id=request_id,
    )
    return client


def _registration_checked(metadata: dict) -> dict:
    uris = metadata.get("redirect_uris")
    if not isinstance(uris, list) or not 1 <= len(uris) <= MAX_REDIRECT_URIS:
        raise ClientMetadataInvalid(
            "invalid_redirect_uri", f"redirect_uris is a list of 1 to {MAX_REDIRECT_URIS} URIs."
        )
    for uri in uris:
        problem = redirect_uri_problem(uri)
        if problem:
            raise ClientMetadataInvalid("invalid_redirect_uri", f"{str(uri)[:200]!r}: {problem}")
    if metadata.get("token_endpoint_auth_method", "none") != "none":
        raise ClientMetadataInvalid(
            "invalid_client_metadata", "Only public clients register here: token_endpoint_auth_method none."
        )
    grants = _listed(metadata, "grant_types", ["authorization_code"])
    if "authorization_code" not in grants or set(grants) - set(REGISTRATION_GRANTS):
        raise ClientMetadataInvalid(
            "invalid_client_metadata", "grant_types: authorization_code, and refresh_token if wanted."
        )
    if _listed(metadata, "response_types", ["code"]) != ["code"]:
        raise ClientMetadataInvalid("invalid_client_metadata", 'response_types: ["code"].')
    return {
        "name": _client_name(metadata, uris[0]),
        "redirect_uris": uris,
        "grant_types": list(dict.fromkeys(grants)),
        "scopes": _registered_scopes(metadata),
    }


def _listed(metadata: dict, name: str, default: list[str]) -> list[str]:
    value = metadata.get(name, default)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ClientMetadataInvalid("invalid_client_metadata", f"{name} is a list of strings.")
    return value


def _client_name(metadata: dict, first_uri: str) -> str:
    name = metadata.get("client_name")
    if name is None:
        return f"Application at {urlsplit(first_uri).hostname}"
    if (
        not isinstance(name, str)
        or len(name) > 255
        or not matches_pattern(CLIENT_NAME_PATTERN, name)
        or any("\ud800" <= ch <= "\udfff" for ch in name)
    ):
        raise ClientMetadataInvalid(
            "invalid_client_metadata",
            "client_name is up to 255 characters, not only spaces, without control, format, private "
            "use or separator characters other than the space.",
        )
    return name.strip()


def _registered_scopes(metadata: dict) -> list[str]:
    scope = metadata.get("scope")
    if scope is None:
        return list(REGISTRABLE_SCOPES)
    asked = scope.split() if isinstance(scope, str) else None
    if not asked or any(s not in REGISTRABLE_SCOPES for s in asked):
        raise ClientMetadataInvalid(
            "invalid_client_metadata", f"scope: some of {' '.join(REGISTRABLE_SCOPES)}, space-separated."
        )
    return list(dict.fromkeys(asked))
