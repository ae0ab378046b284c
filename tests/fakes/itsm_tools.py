"""The fake ITSM instance with the Table API records the tool hub uses: incidents (get, query,
create, PATCH, DELETE), knowledge articles (encoded-query LIKE search) and role grants (a new
`sys_user_has_role` record, kept in `role_grants`; a role the user already holds directly is 403, as
the instance's business rule refuses the duplicate)."""

from __future__ import annotations

import itertools
import uuid

from tests.fakes.itsm import FakeItsm
from tests.fakes.server import Received, Reply, route

_numbers = itertools.count(10001)


class FakeItsmTools(FakeItsm):
    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.incidents: dict[str, dict] = {}
        self.articles: list[dict] = []
        self.throttle_creates = 0  # answer this many creates with 429 first
        self.role_grants: list[dict] = []

    def bearer(self, token: str) -> str:
        """A token as the platform issued it earlier (the vault holds it)."""
        self.tokens.add(token)
        return token

    def add_incident(self, short_description: str, **fields) -> dict:
        sys_id = uuid.uuid4().hex
        row = {
            "sys_id": sys_id,
            "number": f"INC{next(_numbers):07d}",
            "short_description": short_description,
            "description": "",
            "state": "1",
            "priority": "3",
            "urgency": "2",
            "impact": "2",
            "category": "inquiry",
            "assignment_group": "",
            "assigned_to": "",
            "caller_id": "",
            "opened_at": "2026-11-20 10:00:00",
            "sys_updated_on": "2026-11-20 10:00:00",
            "active": "true",
        } | {k: str(v) for k, v in fields.items()}
        self.incidents[sys_id] = row
        return row

    def add_article(self, short_description: str, text: str, *, published: bool = True) -> dict:
        row = {
            "sys_id": uuid.uuid4().hex,
            "number": f"KB{next(_numbers):07d}",
            "short_description": short_description,
            "text": text,
            "kb_knowledge_base": "a" * 32,
            "workflow_state": "published" if published else "draft",
            "sys_updated_on": "2026-11-20 10:00:00",
        }
        self.articles.append(row)
        return row

    # ---- incidents
    @route("GET", r"/api/now/table/incident")
    def incident_query(self, request: Received) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        rows = [r for r in self.incidents.values() if _matches(r, _query(request))]
        offset, limit = (
            int(_first(request, "sysparm_offset", "0")),
            int(_first(request, "sysparm_limit", "100")),
        )
        return Reply(200, {"result": [_only(r, request) for r in rows[offset : offset + limit]]})

    @route("GET", r"/api/now/table/incident/(?P<sys_id>[^/]+)")
    def incident_get(self, request: Received, sys_id: str) -> Reply:
        return self._authorized(request) or self._with_incident(
            sys_id, lambda r: Reply(200, {"result": _only(r, request)})
        )

    @route("POST", r"/api/now/table/incident")
    def incident_create(self, request: Received) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        if self.throttle_creates > 0:
            self.throttle_creates -= 1
            return Reply(429, {"error": {"message": "Rate limit exceeded"}}, {"Retry-After": "0"})
        fields = request.json()
        if not fields.get("short_description"):
            return Reply(
                400,
                {
                    "error": {"message": "Mandatory field missing: short_description", "detail": ""},
                    "status": "failure",
                },
            )
        return Reply(201, {"result": _only(self.add_incident(**fields), request)})

    @route("PATCH", r"/api/now/table/incident/(?P<sys_id>[^/]+)")
    def incident_update(self, request: Received, sys_id: str) -> Reply:
        def apply(row):
            row.update({k: str(v) for k, v in request.json().items()})
            return Reply(200, {"result": _only(row, request)})

        return self._authorized(request) or self._with_incident(sys_id, apply)

    @route("DELETE", r"/api/now/table/incident/(?P<sys_id>[^/]+)")
    def incident_delete(self, request: Received, sys_id: str) -> Reply:
        return self._authorized(request) or self._with_incident(
            sys_id, lambda r: (self.incidents.pop(sys_id), Reply(204, b""))[1]
        )

    # ---- knowledge
    @route("GET", r"/api/now/table/kb_knowledge")
    def article_query(self, request: Received) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        query = _first(request, "sysparm_query", "")
        terms = [part.split("LIKE", 1)[1].lower() for part in query.split("^") if "LIKE" in part]
        rows = [
            a
            for a in self.articles
            if a["workflow_state"] == "published"
            and any(t in a["short_description"].lower() or t in a["text"].lower() for t in terms)
        ]
        limit = int(_first(request, "sysparm_limit", "100"))
        return Reply(200, {"result": [_only(r, request) for r in rows[:limit]]})

    # ---- user roles
    @route("POST", r"/api/now/table/sys_user_has_role")
    def role_grant(self, request: Received) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        fields = request.json()
        if not fields.get("user") or not fields.get("role"):
            return Reply(
                400, {"error": {"message": "Mandatory fields missing: user, role"}, "status": "failure"}
            )
        if any(g["user"] == fields["user"] and g["role"] == fields["role"] for g in self.role_grants):
            detail = "Operation against file 'sys_user_has_role' was aborted by Business Rule"
            return Reply(
                403, {"error": {"message": "Operation Failed", "detail": detail}, "status": "failure"}
            )
        row = {
            "sys_id": uuid.uuid4().hex,
            "user": fields["user"],
            "role": fields["role"],
            "state": "active",
            "inherited": "false",
            "granted_by": "",
        }
        self.role_grants.append(row)
        return Reply(201, {"result": _only(row, request)})

    def _with_incident(self, sys_id: str, then) -> Reply:
        row = self.incidents.get(sys_id)
        if row is None:
            return Reply(
                404,
                {
                    "error": {
                        "message": "No Record found",
                        "detail": "Record doesn't exist or ACL restricts the record retrieval",
                    },
                    "status": "failure",
                },
            )
        return then(row)


def _first(request: Received, name: str, default: str) -> str:
    return (request.query.get(name) or [default])[0]


def _query(request: Received) -> dict[str, str]:
    """The simple `field=value^field=value` part of an encoded query (ORDERBY... ignored)."""
    parts = _first(request, "sysparm_query", "").split("^")
    return dict(part.split("=", 1) for part in parts if "=" in part and not part.startswith("ORDERBY"))


def _matches(row: dict, conditions: dict[str, str]) -> bool:
    return all(row.get(field) == value for field, value in conditions.items())


def _only(row: dict, request: Received) -> dict:
    fields = _first(request, "sysparm_fields", "")
    return {k: v for k, v in row.items() if not fields or k in fields.split(",")}
