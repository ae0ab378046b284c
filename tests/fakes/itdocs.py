"""A fake IT documentation platform: JSON:API (`application/vnd.api+json`), `x-api-key` auth,
`/organizations` with `filter[name]` and `page[size]`/`page[number]` paging, `/configurations/{id}`,
errors as `{"errors": [{"status", "title", "detail"}]}`. Configurations are written as the platform
takes them: create (`POST /configurations`), update (`PATCH /configurations/{id}`), each with a
`{"data": {"type": "configurations", "attributes"}}` document, and bulk destroy (`DELETE
/configurations` with `{"data": [{"type", "attributes": {"id"}}]}`); a name is unique in its
organization (422), unknown organizations, types and statuses are 422, unknown ids 404."""

from __future__ import annotations

import json
import math

from tests.fakes.server import FakeVendor, Received, Reply, route

MEDIA_TYPE = "application/vnd.api+json"


class FakeItdocs(FakeVendor):
    def __init__(self, *, api_key: str = "itdocs-key", **kw) -> None:
        super().__init__(**kw)
        self.api_key = api_key
        self.organizations: list[dict] = []
        self.configurations: dict[str, dict] = {}
        self.throttle_next = 0  # answer this many requests with 429 first
        self.retry_after = "60"
        self.configuration_types = {"1": "Server", "2": "Workstation"}
        self.configuration_statuses = {"1": "Active", "2": "Inactive"}

    def add_organization(self, name: str, **attributes) -> str:
        org_id = str(1000 + len(self.organizations))
        self.organizations.append(
            {
                "id": org_id,
                "type": "organizations",
                "attributes": {
                    "name": name,
                    "short-name": attributes.get("short_name", name.lower()[:10]),
                    "organization-type-name": attributes.get("type", "Customer"),
                    "organization-status-name": attributes.get("status", "Active"),
                    "description": attributes.get("description"),
                    "updated-at": "2026-11-20T10:00:00.000Z",
                },
            }
        )
        return org_id

    def add_configuration(self, org_id: str, name: str, **attributes) -> str:
        config_id = str(5000 + len(self.configurations))
        org = next(o for o in self.organizations if o["id"] == org_id)
        self.configurations[config_id] = {
            "id": config_id,
            "type": "configurations",
            "attributes": {
                "organization-id": int(org_id),
                "organization-name": org["attributes"]["name"],
                "name": name,
                "hostname": attributes.get("hostname", name),
                "primary-ip": attributes.get("primary_ip", "10.0.0.5"),
                "configuration-type-id": 1,
                "configuration-type-name": attributes.get("type", "Server"),
                "configuration-status-id": 1,
                "configuration-status-name": "Active",
                "manufacturer-name": "Contoso",
                "model-name": "R740",
                "serial-number": attributes.get("serial_number", "SN-1"),
                "notes": None,
                "archived": False,
                "updated-at": "2026-11-20T10:00:00.000Z",
            },
        }
        return config_id

    @route("GET", r"/organizations")
    def organization_list(self, request: Received) -> Reply:
        refusal = self._refusal(request)
        if refusal:
            return refusal
        rows = self.organizations
        name = _param(request, "filter[name]")
        if name:
            rows = [o for o in rows if o["attributes"]["name"] == name]
        size = int(_param(request, "page[size]") or 50)
        number = int(_param(request, "page[number]") or 1)
        page = rows[(number - 1) * size : number * size]
        pages = max(1, math.ceil(len(rows) / size))
        meta = {
            "current-page": number,
            "next-page": number + 1 if number < pages else None,
            "prev-page": number - 1 if number > 1 else None,
            "total-pages": pages,
            "total-count": len(rows),
            "filters": {},
        }
        return Reply(200, {"data": page, "meta": meta, "links": {}}, {"Content-Type": MEDIA_TYPE})

    @route("GET", r"/configurations/(?P<config_id>[^/]+)")
    def configuration_get(self, request: Received, config_id: str) -> Reply:
        refusal = self._refusal(request)
        if refusal:
            return refusal
        if config_id not in self.configurations:
            return _error(404, "Record Not Found", f"Couldn't find Configuration with 'id'={config_id}")
        return Reply(200, {"data": self.configurations[config_id]}, {"Content-Type": MEDIA_TYPE})

    @route("POST", r"/configurations")
    def configuration_create(self, request: Received) -> Reply:
        attributes, refusal = self._write(request)
        if refusal:
            return refusal
        config_id = str(5000 + len(self.configurations))
        record = {"id": config_id, "type": "configurations", "attributes": {"archived": False}}
        problem = self._apply(record, attributes)
        if problem:
            return problem
        self.configurations[config_id] = record
        return Reply(201, {"data": record}, {"Content-Type": MEDIA_TYPE})

    @route("PATCH", r"/configurations/(?P<config_id>[^/]+)")
    def configuration_update(self, request: Received, config_id: str) -> Reply:
        attributes, refusal = self._write(request)
        if refusal:
            return refusal
        if config_id not in self.configurations:
            return _error(404, "Record Not Found", f"Couldn't find Configuration with 'id'={config_id}")
        record = json.loads(json.dumps(self.configurations[config_id]))
        problem = self._apply(record, attributes)
        if problem:
            return problem
        self.configurations[config_id] = record
        return Reply(200, {"data": record}, {"Content-Type": MEDIA_TYPE})

    @route("DELETE", r"/configurations")
    def configuration_bulk_destroy(self, request: Received) -> Reply:
        refusal = self._refusal(request)
        if refusal:
            return refusal
        rows = (request.json() or {}).get("data")
        if not isinstance(rows, list) or not all(_is_resource(row) for row in rows):
            return _error(400, "Bad Request", "data must be an array of configurations")
        ids = [str(row["attributes"].get("id")) for row in rows]
        missing = [i for i in ids if i not in self.configurations]
        if missing:
            return _error(404, "Record Not Found", f"Couldn't find Configuration with 'id'={missing[0]}")
        gone = [self.configurations.pop(i) for i in ids]
        return Reply(200, {"data": gone}, {"Content-Type": MEDIA_TYPE})

    def _write(self, request: Received) -> tuple[dict, Reply | None]:
        """The attributes of a write's JSON:API document, or the platform's refusal."""
        refusal = self._refusal(request)
        if refusal:
            return {}, refusal
        if request.headers.get("Content-Type", "").split(";")[0] != MEDIA_TYPE:
            return {}, _error(415, "Unsupported Media Type", f"Send {MEDIA_TYPE}")
        data = (request.json() or {}).get("data")
        if not _is_resource(data):
            return {}, _error(400, "Bad Request", "data must be a configurations resource")
        return data["attributes"], None

    def _apply(self, record: dict, attributes: dict) -> Reply | None:
        """Set `attributes` on `record` (names resolved from ids), or the platform's 422."""
        attrs = record["attributes"]
        attrs.update(attributes)
        org = next((o for o in self.organizations if o["id"] == str(attrs.get("organization-id"))), None)
        kind = self.configuration_types.get(str(attrs.get("configuration-type-id")))
        status = self.configuration_statuses.get(str(attrs.get("configuration-status-id")))
        for value, what in (
            (org, "Organization"),
            (kind, "Configuration type"),
            (status, "Configuration status"),
        ):
            if value is None:
                return _error(422, "Unprocessable Entity", f"{what} can't be blank")
        taken = any(
            c["id"] != record["id"]
            and c["attributes"]["organization-id"] == attrs["organization-id"]
            and c["attributes"]["name"] == attrs.get("name")
            for c in self.configurations.values()
        )
        if not attrs.get("name") or taken:
            return _error(
                422, "Unprocessable Entity", "Name has already been taken" if taken else "Name can't be blank"
            )
        attrs |= {
            "organization-name": org["attributes"]["name"],
            "configuration-type-name": kind,
            "configuration-status-name": status,
            "updated-at": "2026-11-21T09:30:00.000Z",
        }
        return None

    def _refusal(self, request: Received) -> Reply | None:
        with self._lock:
            throttled, self.throttle_next = self.throttle_next > 0, max(0, self.throttle_next - 1)
        if throttled:
            reply = _error(429, "Too Many Requests", "Rate limit exceeded")
            reply.headers["Retry-After"] = self.retry_after
            return reply
        if request.headers.get("x-api-key") != self.api_key:
            return _error(401, "Unauthorized", "Invalid API key")
        return None


def _is_resource(value) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "configurations"
        and isinstance(value.get("attributes"), dict)
    )


def _param(request: Received, name: str) -> str | None:
    values = request.query.get(name)
    return values[0] if values else None


def _error(status: int, title: str, detail: str) -> Reply:
    return Reply(
        status,
        {"errors": [{"status": str(status), "title": title, "detail": detail}]},
        {"Content-Type": MEDIA_TYPE},
    )
