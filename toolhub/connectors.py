"""Connectors: how a connection of each type becomes a vendor client (`integrations/`), with the
vault credential it names, per-connector timeouts, and retries for `read` tools only. The
`knowledge` connector is the exception: it serves the tenant's own knowledge base in this service,
so its connections have no base URL and no credential (`Connector.vendor` is False).

Vendor failures become the tool interface's codes here: a vendor 429 is `RATE_LIMITED` (source
`upstream`), a timeout `UPSTREAM_ERROR` 504, anything else `UPSTREAM_ERROR` 502 with the vendor's
status, code and message.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings

from core.api.errors import ApiError
from core.outbound import OutboundRefused
from core.principals import Principal
from identity.sources import source_identities
from integrations.base import VendorClient
from integrations.errors import VendorError, VendorThrottled, VendorTimeout
from integrations.itdocs import ItdocsClient
from integrations.itsm import ItsmClient, ItsmCredentials
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.models import SitelibCredentials
from integrations.wikispace import WikiClient
from toolhub.errors import ConnectionNotFound, UpstreamError, upstream_rate_limited
from toolhub.models import Connection, RiskLevel
from toolhub.tools.knowledge import KnowledgeBase
from vault.services.use import credential_for_use

READ_RETRIES = 3


@dataclass(frozen=True)
class Connector:
    type: str
    domain: str
    timeout: tuple[float, float]  # (connect, read) seconds of one vendor request
    # (connection, credential, session options, the calling principal or None)
    build: Callable[[Connection, object, dict, Principal | None], VendorClient]
    health: Callable[[VendorClient], None]  # one cheap authenticated read; raises VendorError
    vendor: bool = True  # False: no base URL, no vault credential (the credential passed is None)

    def timeouts(self, connection: Connection) -> tuple[float, float]:
        """The connector's timeouts, or the connection's own (`connect_timeout`, `read_timeout`)."""
        connect = connection.settings.get("connect_timeout") or self.timeout[0]
        read = connection.settings.get("read_timeout") or self.timeout[1]
        return float(connect), float(read)

    def lease(self, connection: Connection, *, read: bool = True) -> timedelta:
        """How long a call may take at most: every attempt at its full timeout (only `read` tools
        retry)."""
        attempts = READ_RETRIES + 1 if read else 1
        return timedelta(seconds=sum(self.timeouts(connection)) * attempts)


def _secret(credential, name: str) -> str:
    """A named value of a vault credential: its secrets first, then its (non-secret) metadata."""
    value = (credential.secrets or {}).get(name) or (credential.metadata or {}).get(name) or ""
    return str(value)


def _basic_pair(credential) -> tuple[str, str]:
    """basic_auth keeps base64("user:secret") as its access token (api-spec); other types keep the
    user in metadata and the secret as the access token."""
    token = credential.access_token or ""
    if credential.auth_type == "basic_auth":
        try:
            user, _, secret = base64.b64decode(token, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            user, secret = "", ""
        if user and secret:
            return user, secret
    return _secret(credential, "username"), token or _secret(credential, "api_token")


_BEARER_TYPES = frozenset({"oauth2_bearer", "bearer_token", "oauth2_client_credentials", "jwt"})
_OAUTH_TYPES = frozenset({"oauth2_bearer", "oauth2_client_credentials"})
_ITSM_TYPES = "basic_auth, bearer_token, jwt, oauth2_bearer or oauth2_client_credentials"


def _itsm(connection: Connection, credential, options: dict, caller) -> VendorClient:
    """The credential is used as its auth type says: HTTP Basic for `basic_auth`, its access token
    as a bearer for the bearer types (the vault keeps an OAuth token fresh), and the instance's own
    token grant only for an OAuth credential that holds no access token."""
    instance = urlsplit(connection.base_url).netloc
    auth_type = credential.auth_type
    if auth_type == "basic_auth":
        return ItsmClient(instance=instance, basic_auth=_basic_pair(credential), session_options=options)
    if auth_type in _BEARER_TYPES and credential.access_token:
        return ItsmClient(instance=instance, access_token=credential.access_token, session_options=options)
    if auth_type not in _OAUTH_TYPES:
        if auth_type in _BEARER_TYPES:
            raise _unusable(connection, f"its {auth_type} credential holds no access token")
        raise _unusable(connection, f"the itsmplatform connector takes {_ITSM_TYPES}, not {auth_type}")
    creds = ItsmCredentials(
        username=_secret(credential, "username"),
        password=_secret(credential, "password"),
        client_id=_secret(credential, "client_id") or _secret(credential, "clientId"),
        client_secret=_secret(credential, "client_secret") or _secret(credential, "clientSecret"),
        refresh_token=credential.refresh_token or "",
    )
    return ItsmClient(instance=instance, credentials=creds, session_options=options)


def _unusable(connection: Connection, why: str) -> ConnectionNotFound:
    return ConnectionNotFound(
        f"The credential of connection {connection.name!r} cannot be used: {why}.",
        details={"connection_id": connection.public_id, "reason": "CREDENTIAL_AUTH_TYPE_UNSUPPORTED"},
    )


def _wiki(connection: Connection, credential, options: dict, caller) -> VendorClient:
    username, api_token = _basic_pair(credential)
    return WikiClient(
        base_url=connection.base_url, username=username, api_token=api_token, session_options=options
    )


def _sitelib(connection: Connection, credential, options: dict, caller) -> VendorClient:
    creds = SitelibCredentials(
        cloud_tid=_secret(credential, "cloud_tid"),
        client_id=_secret(credential, "client_id"),
        client_secret=_secret(credential, "client_secret"),
        thumbprint=_secret(credential, "thumbprint"),
        private_key=_secret(credential, "private_key"),
    )
    token = (
        credential.access_token
        if credential.auth_type in _BEARER_TYPES - {"oauth2_client_credentials"}
        else None
    )
    return SitelibClient(
        graph_url=connection.base_url,
        login_url=connection.settings.get("login_url") or settings.SITELIB_LOGIN_URL,
        credentials=creds,
        access_token=token or None,
        session_options=options,
    )


def _knowledge(connection: Connection, credential, options: dict, caller: Principal | None) -> KnowledgeBase:
    """The tenant's knowledge base as the caller may read it (a connection test reads nothing)."""
    identities = source_identities(caller, connection.tenant) if caller is not None else frozenset()
    return KnowledgeBase(tenant=connection.tenant, identities=identities)


def _itdocs(connection: Connection, credential, options: dict, caller) -> VendorClient:
    api_key = credential.access_token or _secret(credential, "api_key")
    return ItdocsClient(base_url=connection.base_url, api_key=api_key, session_options=options)


CONNECTORS: dict[str, Connector] = {
    c.type: c
    for c in [
        Connector("itsmplatform", "itsm", (5.0, 20.0), _itsm, lambda c: c.incident_probe()),
        Connector("wikispace", "wiki", (5.0, 20.0), _wiki, lambda c: c.space_probe()),
        Connector("sitelib", "documents", (5.0, 30.0), _sitelib, lambda c: c.site_probe()),
        Connector("itdocs", "itdocs", (5.0, 20.0), _itdocs, lambda c: c.organization_probe()),
        Connector("knowledge", "knowledge", (5.0, 60.0), _knowledge, lambda c: c.probe(), vendor=False),
    ]
}


def upstream_lease(connection: Connection, tool=None) -> timedelta:
    read = tool is None or tool.risk_level == RiskLevel.READ
    return CONNECTORS[connection.connector].lease(connection, read=read)


def connector_client(
    *, connection: Connection, tenant, actor: dict, request_id: str, read: bool
) -> VendorClient:
    """A vendor client for one call, authenticated with the connection's vault credential."""
    credential = _credential(connection, tenant, actor, request_id, count=True)
    return _client(connection, credential, read=read)


def _credential(connection: Connection, tenant, actor: dict, request_id: str, *, count: bool):
    """The connection's live vault credential (None for a connector that uses none)."""
    if not CONNECTORS[connection.connector].vendor:
        return None
    try:
        return credential_for_use(
            tenant=tenant,
            integration_id=connection.integration_id,
            actor=actor,
            request_id=request_id,
            count=count,
        )
    except ApiError as exc:
        raise ConnectionNotFound(
            f"The credential of connection {connection.name!r} cannot be used: {exc.message}",
            details={"connection_id": connection.public_id, "reason": exc.code},
        ) from None


def _client(
    connection: Connection, credential, *, read: bool, caller: Principal | None = None
) -> VendorClient:
    connector = CONNECTORS[connection.connector]
    options = {
        "timeout": connector.timeouts(connection),
        "retries": READ_RETRIES if read else 0,
        # One kept-alive pool per connection (a connection belongs to one tenant): consecutive
        # calls reuse their TCP/TLS connections, while headers and auth stay per call.
        "keep_alive": f"toolhub:{connection.id}",
    }
    return connector.build(connection, credential, options, caller)


def upstream_run(*, call, tool, on_start: Callable[[], None] | None = None) -> object:
    """Run the tool's implementation for the call's connection against the vendor. `on_start` runs
    once the client is ready, right before the first request leaves for the vendor (it may raise to
    stop the call). The credential's access is left for the call's record to count, with it
    (`call.credential_used`)."""
    connection = call.connection
    credential = _credential(connection, call.tenant, call.actor, call.request_id, count=False)
    call.credential_used = credential.uncounted if credential is not None else None
    client = _client(connection, credential, read=tool.risk_level == RiskLevel.READ, caller=call.principal)
    if on_start is not None:
        on_start()
    with vendor_errors(), client:
        return tool.implementations[connection.connector](client, call.input)


def connection_probe(*, connection: Connection, tenant, actor: dict, request_id: str) -> None:
    """The connection test: one authenticated read at the vendor; raises like a tool call."""
    client = connector_client(
        connection=connection, tenant=tenant, actor=actor, request_id=request_id, read=True
    )
    with vendor_errors(), client:
        CONNECTORS[connection.connector].health(client)


class vendor_errors:
    """Translate vendor failures into the tool interface's errors."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None:
            return False
        if isinstance(exc, VendorThrottled):
            wait = int(exc.retry_after) if exc.retry_after else 1
            raise upstream_rate_limited(
                retry_after=wait, status=exc.status or 429, message=exc.message
            ) from None
        if isinstance(exc, VendorError):
            raise UpstreamError(
                exc.message,
                status=exc.status,
                vendor_code=exc.vendor_code,
                timeout=isinstance(exc, VendorTimeout),
            ) from None
        if isinstance(exc, OutboundRefused):
            raise UpstreamError(
                f"The connection's address was refused: {exc.reason}", status=None, vendor_code=None
            ) from None
        return False
