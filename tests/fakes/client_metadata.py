"""A client that publishes its OAuth metadata document (the `client-id-metadata-document` draft)
over HTTPS on loopback: its `client_id` is the document's URL."""

from __future__ import annotations

from tests.fakes.server import FakeVendor, Received, Reply, route


class FakeClientMetadata(FakeVendor):
    def __init__(self, **kw) -> None:
        kw.setdefault("tls", True)
        super().__init__(**kw)
        self.document: dict = {}

    @property
    def client_id(self) -> str:
        return f"{self.url}/oauth/client.json"

    def publish(self, **fields) -> str:
        """Serve a valid document (with `fields` changed) and return its client_id."""
        self.document = {
            "client_id": self.client_id,
            "client_name": "Desk agent",
            "redirect_uris": ["http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        } | fields
        return self.client_id

    @route("GET", "/oauth/client.json")
    def client_json(self, request: Received) -> Reply:
        return Reply(200, self.document)
