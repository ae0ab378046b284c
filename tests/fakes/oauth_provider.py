"""A fake OAuth 2.0 token endpoint (RFC 6749 section 6 refresh and section 4.4 client credentials),
served on loopback so the vault's real outbound client talks to it.

Knobs: `valid_refresh_tokens` / `clients` (what it accepts), `mode` ("ok", "invalid_grant",
"server_error"), `rotate_refresh_tokens`, `expires_in`, `latency`. Every request is recorded.
"""

from __future__ import annotations

import itertools
import threading

from tests.fakes.server import FakeVendor, Received, Reply, route


class FakeOAuthProvider(FakeVendor):
    def __init__(self, *, expires_in: int = 3600, rotate_refresh_tokens: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.expires_in = expires_in
        self.rotate_refresh_tokens = rotate_refresh_tokens
        self.mode = "ok"
        self.valid_refresh_tokens: set[str] = set()
        self.clients: dict[str, str] = {}  # client_id -> client_secret
        self.issued: list[str] = []
        self._serial = itertools.count(1)
        self._issue_lock = threading.Lock()

    @property
    def token_url(self) -> str:
        return self.url + "/oauth2/token"

    def token_calls(self) -> list[Received]:
        return self.requests_to(r"^/oauth2/token$")

    @route("POST", "/oauth2/token")
    def token(self, request: Received) -> Reply:
        if self.mode == "server_error":
            return Reply(503, {"error": "temporarily_unavailable"})
        form = request.form()
        grant = form.get("grant_type")
        if grant == "refresh_token":
            if self.mode == "invalid_grant" or form.get("refresh_token") not in self.valid_refresh_tokens:
                return Reply(
                    400, {"error": "invalid_grant", "error_description": "Refresh token is invalid."}
                )
            return Reply(
                200, self._issue(with_refresh=self.rotate_refresh_tokens, spent=form["refresh_token"])
            )
        if grant == "client_credentials":
            client_id = form.get("client_id", "")
            if self.mode == "invalid_grant" or self.clients.get(client_id) != form.get("client_secret"):
                return Reply(401, {"error": "invalid_client"})
            return Reply(200, self._issue(with_refresh=False))
        return Reply(400, {"error": "unsupported_grant_type"})

    def _issue(self, *, with_refresh: bool, spent: str | None = None) -> dict:
        with self._issue_lock:
            serial = next(self._serial)
            body = {
                "access_token": f"fresh-access-{serial}",
                "token_type": "Bearer",
                "expires_in": self.expires_in,
            }
            if with_refresh:
                body["refresh_token"] = f"fresh-refresh-{serial}"
                self.valid_refresh_tokens.discard(spent)
                self.valid_refresh_tokens.add(body["refresh_token"])
            self.issued.append(body["access_token"])
        return body
