"""A fake OpenID Connect provider (in the shape of Keycloak), served over HTTPS with the fakes'
self-signed certificate: per-realm discovery documents and JWK sets, RSA signing keys that can be
rotated, and tokens signed with them. Every request is recorded (`jwks_requests()`)."""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from dataclasses import dataclass

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.server import FakeVendor, Reply, route


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private_key: rsa.RSAPrivateKey

    def public_jwk(self) -> dict:
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.private_key.public_key(), as_dict=True)
        return jwk | {"kid": self.kid, "use": "sig", "alg": "RS256"}


def new_signing_key(kid: str) -> SigningKey:
    return SigningKey(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))


class FakeOidcProvider(FakeVendor):
    def __init__(self, **kw) -> None:
        kw.setdefault("tls", True)
        super().__init__(**kw)
        self._serial = itertools.count(1)
        self.keys = [self._new_key()]
        self._first_key = self.keys[0]

    def _new_key(self) -> SigningKey:
        return new_signing_key(f"key-{next(self._serial)}")

    def reset(self) -> None:
        """Back to the first key, nothing received (a module-scoped server between tests)."""
        with self._lock:
            self.received.clear()
        self.keys = [self._first_key]

    def rotate(self) -> SigningKey:
        """A new signing key replaces the current one, which the JWK set no longer lists."""
        self.keys = [self._new_key()]
        return self.keys[0]

    def issuer(self, realm: str = "acme") -> str:
        return f"{self.url}/realms/{realm}"

    def jwks_requests(self) -> list:
        return self.requests_to(r"/protocol/openid-connect/certs$")

    def discovery_requests(self) -> list:
        return self.requests_to(r"/\.well-known/openid-configuration$")

    def token(
        self, *, realm: str = "acme", key: SigningKey | None = None, headers: dict | None = None, **claims
    ) -> str:
        """An access token of `realm`, signed RS256 with the current key; `claims` override or (as
        None) remove the defaults."""
        key = key or self.keys[0]
        now = int(time.time())
        payload = {
            "iss": self.issuer(realm),
            "aud": "integration-api",
            "sub": "f3b0c2a4-6d1e-4c8b-9a7f-2e5d1c0b9a88",
            "preferred_username": "jane",
            "email": "jane@acme.test",
            "realm_access": {"roles": ["viewer"]},
            "iat": now,
            "exp": now + 300,
            "jti": f"jti-{next(self._serial)}",
        }
        payload = {k: v for k, v in (payload | claims).items() if v is not None}
        return jwt.encode(
            payload, key.private_key, algorithm="RS256", headers={"kid": key.kid, **(headers or {})}
        )

    # ---- routes
    @route("GET", r"/realms/(?P<realm>[^/]+)/\.well-known/openid-configuration")
    def discovery(self, request, realm):
        issuer = self.issuer(realm)
        return Reply(
            200,
            {
                "issuer": issuer,
                "authorization_endpoint": f"{issuer}/protocol/openid-connect/auth",
                "token_endpoint": f"{issuer}/protocol/openid-connect/token",
                "jwks_uri": f"{issuer}/protocol/openid-connect/certs",
                "id_token_signing_alg_values_supported": ["RS256"],
            },
        )

    @route("GET", r"/realms/(?P<realm>[^/]+)/protocol/openid-connect/certs")
    def certs(self, request, realm):
        return Reply(200, {"keys": [key.public_jwk() for key in self.keys]})


if __name__ == "__main__":  # python -m tests.fakes.oidc: a provider to try a realm against by hand
    import sys

    with FakeOidcProvider() as provider:
        roles = sys.argv[1:] or ["viewer"]
        print(f"issuer:   {provider.issuer('acme')}")
        print(f"CA file:  {provider.ca_file}")
        print(f"token:    {provider.token(realm_access={'roles': roles}, exp=int(time.time()) + 3600)}")
        print("Serving until interrupted (Ctrl-C).", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
