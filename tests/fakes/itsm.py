"""A fake ITSM instance over HTTPS: `/oauth_token.do` (password and refresh-token grants), the
Table API for knowledge bases (offset paging) and the aggregate API for article counts. The APIs
take a bearer token it issued (or `bearer` registered) or HTTP Basic with a user of `users`."""

from __future__ import annotations

import base64
import secrets
import uuid
from dataclasses import dataclass

from tests.fakes.server import FakeVendor, Received, Reply, route


@dataclass
class FakeKb:
    sys_id: str
    title: str
    description: str
    active: bool
    articles: int


class FakeItsm(FakeVendor):
    def __init__(self, *, page_size: int = 100, **kw) -> None:
        kw.setdefault("tls", True)
        super().__init__(**kw)
        self.page_size = page_size
        self.users: dict[str, str] = {}
        self.clients: dict[str, str] = {}
        self.refresh_tokens: set[str] = set()
        self.tokens: set[str] = set()
        self.kbs: list[FakeKb] = []

    @property
    def domain(self) -> str:
        """The instance as the API takes it: host (and port), no scheme."""
        return self.url.removeprefix("https://")

    def add_kb(self, title: str, *, description: str = "", active: bool = True, articles: int = 0) -> FakeKb:
        kb = FakeKb(uuid.uuid4().hex, title, description, active, articles)
        self.kbs.append(kb)
        return kb

    # ---- routes
    @route("POST", r"/oauth_token\.do")
    def token(self, request):
        form = request.form()
        if self.clients.get(form.get("client_id", "")) != form.get("client_secret"):
            return Reply(401, {"error": "server_error", "error_description": "access_denied"})
        grant = form.get("grant_type")
        by_password = grant == "password" and self.users.get(form.get("username", "")) == form.get("password")
        by_refresh = grant == "refresh_token" and form.get("refresh_token") in self.refresh_tokens
        if not (by_password or by_refresh):
            return Reply(401, {"error": "server_error", "error_description": "access_denied"})
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.tokens.add(access)
        self.refresh_tokens.add(refresh)
        return Reply(
            200,
            {
                "access_token": access,
                "refresh_token": refresh,
                "scope": "useraccount",
                "token_type": "Bearer",
                "expires_in": 1799,
            },
        )

    @route("GET", r"/api/now/table/kb_knowledge_base")
    def kb_table(self, request):
        refusal = self._authorized(request)
        if refusal:
            return refusal
        offset = int((request.query.get("sysparm_offset") or ["0"])[0])
        limit = min(int((request.query.get("sysparm_limit") or ["100"])[0]), self.page_size)
        fields = (request.query.get("sysparm_fields") or [""])[0].split(",")
        rows = []
        for kb in self.kbs[offset : offset + limit]:
            full = {
                "sys_id": kb.sys_id,
                "title": kb.title,
                "description": kb.description,
                "active": str(kb.active).lower(),
            }
            rows.append({k: v for k, v in full.items() if k in fields})
        headers = {"X-Total-Count": str(len(self.kbs))}
        return Reply(200, {"result": rows}, headers)

    @route("GET", r"/api/now/stats/kb_knowledge")
    def kb_counts(self, request):
        refusal = self._authorized(request)
        if refusal:
            return refusal
        result = [
            {
                "stats": {"count": str(kb.articles)},
                "groupby_fields": [{"field": "kb_knowledge_base", "value": kb.sys_id}],
            }
            for kb in self.kbs
            if kb.articles
        ]
        return Reply(200, {"result": result})

    def _authorized(self, request: Received) -> Reply | None:
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        if scheme == "Bearer" and value in self.tokens:
            return None
        if scheme == "Basic":
            user, _, password = base64.b64decode(value).decode().partition(":")
            if user in self.users and self.users[user] == password:
                return None
        return Reply(
            401,
            {
                "error": {
                    "message": "User Not Authenticated",
                    "detail": "Required to provide Auth information",
                },
                "status": "failure",
            },
        )
