"""A fake identity platform (the sitelib authority), served over HTTPS with the fake's self-signed
certificate, as msal requires: per-tenant OpenID configuration and the v2.0 token endpoint for the
client-credentials grant with a client secret or a certificate (client-assertion JWT, checked
against the registered certificate's SHA-1 thumbprint and public key)."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass

import jwt

from tests.fakes.server import FakeVendor, Received, Reply, route


@dataclass
class App:
    tenant: str
    client_id: str
    secret: str | None = None
    thumbprint: str | None = None  # SHA-1 hex
    public_key: object = None


class FakeIdentity(FakeVendor):
    def __init__(self, **kw) -> None:
        kw.setdefault("tls", True)
        super().__init__(**kw)
        self.apps: dict[tuple[str, str], App] = {}
        self.tenants: set[str] = set()
        self.issued: set[str] = set()  # access tokens handed out; the API fakes accept these

    def add_secret_app(self, tenant: str, client_id: str, secret: str) -> None:
        self.tenants.add(tenant)
        self.apps[(tenant, client_id)] = App(tenant, client_id, secret=secret)

    def add_certificate_app(self, tenant: str, client_id: str, thumbprint: str, public_key) -> None:
        self.tenants.add(tenant)
        self.apps[(tenant, client_id)] = App(
            tenant, client_id, thumbprint=thumbprint.lower(), public_key=public_key
        )

    def token_requests(self) -> list[Received]:
        return self.requests_to(r"/oauth2/v2.0/token$")

    # ---- routes
    @route("GET", r"/(?P<tid>[^/]+)/v2\.0/\.well-known/openid-configuration")
    def openid_configuration(self, request, tid):
        if tid not in self.tenants:
            return Reply(400, _error("invalid_tenant", f"AADSTS90002: Tenant '{tid}' not found."))
        base = f"{self.url}/{tid}"
        return Reply(
            200,
            {
                "issuer": f"{base}/v2.0",
                "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                "token_endpoint": f"{base}/oauth2/v2.0/token",
                "jwks_uri": f"{base}/discovery/v2.0/keys",
                "response_types_supported": ["code", "id_token", "token"],
                "subject_types_supported": ["pairwise"],
                "id_token_signing_alg_values_supported": ["RS256"],
            },
        )

    @route("POST", r"/(?P<tid>[^/]+)/oauth2/v2\.0/token")
    def token(self, request, tid):
        form = request.form()
        if form.get("grant_type") != "client_credentials":
            return Reply(400, _error("unsupported_grant_type", "AADSTS70003: grant type not supported."))
        client_id = form.get("client_id", "")
        app = self.apps.get((tid, client_id))
        if app is None:
            return Reply(
                400, _error("unauthorized_client", f"AADSTS700016: Application '{client_id}' was not found.")
            )
        problem = self._client_problem(app, form, request)
        if problem:
            return Reply(401, _error("invalid_client", problem))
        token = "fake-graph-" + secrets.token_urlsafe(24)
        self.issued.add(token)
        return Reply(
            200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": token}
        )

    def _client_problem(self, app: App, form: dict, request: Received) -> str | None:
        if app.secret is not None:
            given = form.get("client_secret") or _basic_secret(request)
            return None if given == app.secret else "AADSTS7000215: Invalid client secret provided."
        assertion = form.get("client_assertion")
        if (
            form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
            or not assertion
        ):
            return "AADSTS7000218: The request body must contain client_assertion or client_secret."
        header = jwt.get_unverified_header(assertion)
        x5t = base64.urlsafe_b64decode(header.get("x5t", "") + "==").hex()
        if x5t != app.thumbprint:
            return "AADSTS700027: The certificate used to sign the client assertion is not registered."
        try:
            claims = jwt.decode(
                assertion,
                app.public_key,
                algorithms=["RS256", "PS256"],
                audience=f"{self.url}/{app.tenant}/oauth2/v2.0/token",
                issuer=app.client_id,
            )
        except jwt.PyJWTError as exc:
            return f"AADSTS700027: Client assertion failed signature validation ({type(exc).__name__})."
        return None if claims.get("sub") == app.client_id else "AADSTS700023: bad subject."


def _basic_secret(request: Received) -> str | None:
    header = request.headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return None
    return base64.b64decode(header[6:]).decode().partition(":")[2]


def _error(code: str, description: str) -> dict:
    return {"error": code, "error_description": description, "trace_id": secrets.token_hex(8)}
