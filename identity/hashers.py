"""How OAuth client secrets are stored (django-oauth-toolkit's CLIENT_SECRET_HASHER).

A secret carries 256 random bits, so a keyed hash (identity.keys) makes a stolen table useless as
well as a slow password hash would, and keeps the token endpoint cheap: a password hasher costs
about 0.2 s a check here. Rows written before the library kept their `keyed_hash` and verify as is.
"""

from __future__ import annotations

import hmac

from django.contrib.auth.hashers import BasePasswordHasher

from identity.keys import keyed_hash


class ClientSecretHasher(BasePasswordHasher):
    algorithm = "oauth_keyed"

    def salt(self) -> str:
        return ""  # the key, not a salt, makes the hash unique to this deployment

    def encode(self, password: str, salt: str) -> str:
        return f"{self.algorithm}${keyed_hash('oauth-client-secret', password)}"

    def decode(self, encoded: str) -> dict:
        algorithm, digest = encoded.split("$", 1)
        return {"algorithm": algorithm, "hash": digest, "salt": ""}

    def verify(self, password: str, encoded: str) -> bool:
        return hmac.compare_digest(encoded, self.encode(password, ""))

    def safe_summary(self, encoded: str) -> dict:
        return {"algorithm": self.algorithm, "hash": "********"}

    def harden_runtime(self, password: str, encoded: str) -> None:
        pass
