"""The IT documentation platform (`itdocs`): a JSON:API service (`application/vnd.api+json`)
authenticated by an API key in the `x-api-key` header. Collections page with `page[size]` /
`page[number]` and report `meta.total-count` / `meta.total-pages`; attributes use kebab-case names;
errors come as `{"errors": [{"status", "title", "detail"}]}`. Writes send a JSON:API document
(`{"data": {"type", "attributes"}}`); deletes go through the collection's bulk destroy
(`DELETE /configurations` with `{"data": [{"type", "attributes": {"id"}}]}`)."""

from __future__ import annotations

from urllib.parse import quote

import requests

from integrations.base import VendorClient

PLATFORM = "itdocs"
MEDIA_TYPE = "application/vnd.api+json"


class ItdocsClient(VendorClient):
    platform = PLATFORM

    def __init__(self, *, base_url: str, api_key: str, session_options: dict | None = None) -> None:
        super().__init__(base_url=base_url, session_options=session_options)
        self._api_key = api_key

    def __repr__(self) -> str:  # never the key
        return f"<ItdocsClient {self.base_url}>"

    def prepare_session(self, session) -> None:
        session.headers["x-api-key"] = self._api_key
        session.headers["Accept"] = MEDIA_TYPE

    def vendor_error_text(self, response: requests.Response) -> tuple[str | None, str | None]:
        try:
            errors = response.json().get("errors")
        except (ValueError, AttributeError):
            return None, None
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            first = errors[0]
            return first.get("code") or first.get("title"), first.get("detail") or first.get("title")
        return None, None

    # ---- organizations
    def organizations(self, *, name: str | None = None, page: int = 1, page_size: int = 50) -> dict:
        """One page of organizations: the JSON:API document as the platform sends it."""
        params: dict[str, object] = {"page[size]": page_size, "page[number]": page, "sort": "name"}
        if name:
            params["filter[name]"] = name
        return self.get_json("/organizations", params=params)

    def organization_probe(self) -> None:
        """The cheapest authenticated read (a connection test)."""
        self.get_json("/organizations", params={"page[size]": 1})

    # ---- configurations
    def configuration(self, configuration_id: str) -> dict:
        return self.get_json(f"/configurations/{quote(configuration_id, safe='')}")

    def configuration_create(self, attributes: dict) -> dict:
        """A new configuration from kebab-case `attributes`; the platform's JSON:API document."""
        return self._send(
            "POST", "/configurations", {"data": {"type": "configurations", "attributes": attributes}}
        )

    def configuration_update(self, configuration_id: str, attributes: dict) -> dict:
        """Change the given `attributes` of a configuration; the others stay as they are."""
        document = {"data": {"type": "configurations", "attributes": attributes}}
        return self._send("PATCH", f"/configurations/{quote(configuration_id, safe='')}", document)

    def configuration_delete(self, configuration_id: str) -> None:
        document = {"data": [{"type": "configurations", "attributes": {"id": int(configuration_id)}}]}
        self.request("DELETE", "/configurations", json=document, headers={"Content-Type": MEDIA_TYPE}).close()

    def _send(self, method: str, path: str, document: dict) -> dict:
        return self.json_of(self.request(method, path, json=document, headers={"Content-Type": MEDIA_TYPE}))
