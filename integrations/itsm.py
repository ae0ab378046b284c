"""The IT service management platform (`itsmplatform`): the Table API (`/api/now/table/...`, offset
paging), the aggregate API (`/api/now/stats/...`) for counts and the Attachment API
(`/api/now/attachment`) for the files of knowledge articles, authenticated one of three ways:
HTTP Basic with a user and password, a bearer token the caller holds, or an OAuth token from the
instance's `/oauth_token.do` (refresh-token grant when one is given, else or on its refusal the
password grant). The instance is named by its host, called over HTTPS."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote

import requests

from integrations.base import VendorClient
from integrations.errors import VendorDenied, VendorRejected

PLATFORM = "itsmplatform"
PAGE_SIZE = 100
MAX_PAGES = 1000
# Fields the tool hub's incident and knowledge tools read.
INCIDENT_FIELDS = [
    "sys_id",
    "number",
    "short_description",
    "description",
    "state",
    "priority",
    "urgency",
    "impact",
    "category",
    "assignment_group",
    "assigned_to",
    "caller_id",
    "opened_at",
    "sys_updated_on",
]
ARTICLE_FIELDS = [
    "sys_id",
    "number",
    "short_description",
    "kb_knowledge_base",
    "workflow_state",
    "sys_updated_on",
]
# What knowledge ingestion reads of every article, whatever else it asks for.
ARTICLE_BASE_FIELDS = ["sys_id", "number", "short_description", "kb_knowledge_base", "sys_updated_on"]
# Ids per `sys_idIN...` condition: the encoded query travels in the URL, which must stay short.
USER_ROLE_FIELDS = ["sys_id", "user", "role", "state", "inherited"]
ID_BATCH = 100
_SYS_ID = re.compile(r"^[0-9A-Za-z]+$")
_UPDATED_FORMAT = "%Y-%m-%d %H:%M:%S"  # how the instance writes sys_updated_on, in UTC
# A host name or IPv4 address with an optional port: the instance is named without scheme or path.
_HOST = re.compile(r"^(?=.{1,253}(?::\d{1,5})?$)[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?$", re.I)


def instance_host_valid(value: str) -> bool:
    return bool(_HOST.match(value))


@dataclass(frozen=True)
class ItsmCredentials:
    username: str
    password: str = field(repr=False)
    client_id: str
    client_secret: str = field(repr=False)
    refresh_token: str = field(default="", repr=False)


@dataclass(frozen=True)
class KnowledgeBase:
    sys_id: str
    title: str
    description: str
    article_count: int
    active: bool


@dataclass(frozen=True)
class KnowledgeArticle:
    sys_id: str
    number: str
    title: str
    knowledge_base: str  # the knowledge base's sys_id
    updated: datetime | None
    fields: dict[str, str]  # every field the instance returned, as text

    @classmethod
    def from_row(cls, row: dict) -> KnowledgeArticle:
        fields = {str(name): field_text(value) for name, value in row.items()}
        return cls(
            sys_id=fields.get("sys_id", ""),
            number=fields.get("number", ""),
            title=fields.get("short_description", ""),
            knowledge_base=fields.get("kb_knowledge_base", ""),
            updated=updated_at(fields.get("sys_updated_on", "")),
            fields=fields,
        )


@dataclass(frozen=True)
class ArticleAttachment:
    sys_id: str
    article_id: str
    file_name: str
    content_type: str
    size: int | None
    updated: datetime | None

    @classmethod
    def from_row(cls, row: dict) -> ArticleAttachment:
        size = field_text(row.get("size_bytes"))
        return cls(
            sys_id=field_text(row.get("sys_id")),
            article_id=field_text(row.get("table_sys_id")),
            file_name=field_text(row.get("file_name")),
            content_type=field_text(row.get("content_type")),
            size=int(size) if size.isdigit() else None,
            updated=updated_at(field_text(row.get("sys_updated_on"))),
        )


class ItsmClient(VendorClient):
    platform = PLATFORM

    def __init__(
        self,
        *,
        instance: str,
        credentials: ItsmCredentials | None = None,
        access_token: str | None = None,
        basic_auth: tuple[str, str] | None = None,
        session_options: dict | None = None,
    ) -> None:
        """One way to authenticate: `basic_auth` (user, password) for HTTP Basic, `access_token`
        for a bearer token the caller holds (the tool hub's, kept fresh by the vault), else
        `credentials` for the instance's OAuth grant."""
        if not (basic_auth or access_token or credentials):
            raise ValueError("ItsmClient needs basic_auth, an access token or OAuth credentials.")
        super().__init__(base_url=f"https://{instance}", session_options=session_options)
        self.credentials = credentials
        self._basic_auth = basic_auth
        self._token: str | None = access_token or None

    # ---- authentication
    def prepare_session(self, session) -> None:
        session.headers["Accept"] = "application/json"
        if self._basic_auth:
            session.auth = self._basic_auth

    def token(self) -> str:
        if self._token is None:
            self._token = self._acquire_token()
        return self._token

    def _acquire_token(self) -> str:
        creds = self.credentials
        base = {"client_id": creds.client_id, "client_secret": creds.client_secret}
        if creds.refresh_token:
            try:
                return self._grant(
                    {**base, "grant_type": "refresh_token", "refresh_token": creds.refresh_token}
                )
            except (VendorDenied, VendorRejected):
                pass  # an expired refresh token: the password grant below decides
        return self._grant(
            {**base, "grant_type": "password", "username": creds.username, "password": creds.password}
        )

    def _grant(self, form: dict) -> str:
        # A token grant creates nothing: safe to retry on throttling.
        response = super().request("POST", "/oauth_token.do", data=form, idempotent=True)
        token = self.json_of(response).get("access_token")
        if not token:
            raise VendorDenied("The ITSM platform issued no access token.", platform=PLATFORM)
        return str(token)

    def request(self, method: str, path_or_url: str, **kwargs) -> requests.Response:
        if not self._basic_auth:  # HTTP Basic rides on the session (prepare_session)
            headers = {"Authorization": f"Bearer {self.token()}"}
            kwargs["headers"] = {**headers, **(kwargs.get("headers") or {})}
        return super().request(method, path_or_url, **kwargs)

    def error_for(self, response: requests.Response):
        error = super().error_for(response)
        # The token endpoint answers 400/401 for refused grants: both mean "credentials refused".
        if isinstance(error, VendorRejected) and response.request.path_url.startswith("/oauth_token.do"):
            return VendorDenied(
                error.message, platform=PLATFORM, status=error.status, vendor_code=error.vendor_code
            )
        return error

    def vendor_error_text(self, response: requests.Response) -> tuple[str | None, str | None]:
        try:
            body = response.json()
        except ValueError:
            return None, None
        if not isinstance(body, dict):
            return None, None
        if "error_description" in body or isinstance(body.get("error"), str):
            return str(body.get("error") or ""), body.get("error_description")
        error = body.get("error") or {}
        if isinstance(error, dict):
            return None, error.get("message")
        return None, None

    # ---- tables
    def table(self, table: str, *, fields: list[str], query: str = "") -> Iterator[dict]:
        """Every record of a table."""
        params = {"sysparm_fields": ",".join(fields), "sysparm_exclude_reference_link": "true"}
        if query:
            params["sysparm_query"] = query
        return self._pages(f"/api/now/table/{table}", params)

    def _pages(self, path: str, params: dict) -> Iterator[dict]:
        """Every row of a list API. Offset paging: the instance may cap a page below the limit
        asked for, so the end is an empty page or the `X-Total-Count` it reports."""
        offset = 0
        for _ in range(MAX_PAGES):
            page = {**params, "sysparm_limit": PAGE_SIZE, "sysparm_offset": offset}
            response = self.request("GET", path, params=page)
            rows = [row for row in self.json_of(response).get("result") or [] if isinstance(row, dict)]
            yield from rows
            offset += len(rows)
            total = response.headers.get("X-Total-Count", "")
            if not rows or (total.isdigit() and offset >= int(total)):
                return

    def counts_by(self, table: str, *, group_by: str) -> dict[str, int]:
        body = self.get_json(
            f"/api/now/stats/{table}", params={"sysparm_count": "true", "sysparm_group_by": group_by}
        )
        counts: dict[str, int] = {}
        for row in body.get("result") or []:
            groups = row.get("groupby_fields") or [] if isinstance(row, dict) else []
            value = next((g.get("value") for g in groups if g.get("field") == group_by), None)
            if value is not None:
                counts[str(value)] = int((row.get("stats") or {}).get("count") or 0)
        return counts

    # ---- knowledge
    def knowledge_bases(self) -> list[KnowledgeBase]:
        counts = self.counts_by("kb_knowledge", group_by="kb_knowledge_base")
        rows = self.table("kb_knowledge_base", fields=["sys_id", "title", "description", "active"])
        return [
            KnowledgeBase(
                sys_id=str(row.get("sys_id", "")),
                title=str(row.get("title", "")),
                description=str(row.get("description") or ""),
                article_count=counts.get(str(row.get("sys_id", "")), 0),
                active=str(row.get("active", "")).lower() == "true",
            )
            for row in rows
        ]

    # ---- incidents and knowledge articles (the tool hub's ITSM tools)
    def _table_params(self, fields: list[str], **extra) -> dict:
        return {"sysparm_fields": ",".join(fields), "sysparm_exclude_reference_link": "true", **extra}

    def incident_get(self, sys_id: str) -> dict:
        body = self.get_json(f"/api/now/table/incident/{sys_id}", params=self._table_params(INCIDENT_FIELDS))
        return body.get("result") or {}

    def incident_find(self, number: str) -> dict | None:
        params = self._table_params(
            INCIDENT_FIELDS, sysparm_query=f"number={query_value(number)}", sysparm_limit=1
        )
        rows = self.get_json("/api/now/table/incident", params=params).get("result") or []
        return rows[0] if rows else None

    def incident_list(self, *, query: str, limit: int, offset: int) -> list[dict]:
        params = self._table_params(INCIDENT_FIELDS, sysparm_limit=limit, sysparm_offset=offset)
        if query:
            params["sysparm_query"] = query
        return list(self.get_json("/api/now/table/incident", params=params).get("result") or [])

    def incident_create(self, fields: dict) -> dict:
        response = self.request(
            "POST", "/api/now/table/incident", params=self._table_params(INCIDENT_FIELDS), json=fields
        )
        return self.json_of(response).get("result") or {}

    def incident_update(self, sys_id: str, fields: dict) -> dict:
        response = self.request(
            "PATCH",
            f"/api/now/table/incident/{sys_id}",
            params=self._table_params(INCIDENT_FIELDS),
            json=fields,
        )
        return self.json_of(response).get("result") or {}

    def incident_delete(self, sys_id: str) -> None:
        self.request("DELETE", f"/api/now/table/incident/{sys_id}")

    def user_role_grant(self, user_sys_id: str, role_sys_id: str) -> dict:
        """Grant a user a role: a new `sys_user_has_role` record (needs the instance's
        `user_admin` or `admin` role). The record, its references as plain sys_ids."""
        response = self.request(
            "POST",
            "/api/now/table/sys_user_has_role",
            params=self._table_params(USER_ROLE_FIELDS),
            json={"user": user_sys_id, "role": role_sys_id},
        )
        return self.json_of(response).get("result") or {}

    def incident_probe(self) -> None:
        self.get_json("/api/now/table/incident", params={"sysparm_fields": "sys_id", "sysparm_limit": 1})

    def knowledge_search(self, *, text: str, limit: int) -> list[dict]:
        term = query_value(text)
        query = f"workflow_state=published^short_descriptionLIKE{term}^ORtextLIKE{term}"
        params = self._table_params(ARTICLE_FIELDS, sysparm_query=query, sysparm_limit=limit)
        return list(self.get_json("/api/now/table/kb_knowledge", params=params).get("result") or [])

    # ---- knowledge ingestion
    def articles(
        self, *, knowledge_bases: Sequence[str], fields: Sequence[str] = ()
    ) -> list[KnowledgeArticle]:
        """The published articles of `knowledge_bases` (empty: of every knowledge base), with
        ARTICLE_BASE_FIELDS and `fields`."""
        query = "workflow_state=published"
        if knowledge_bases:
            bases = plain_sys_ids(knowledge_bases)
            if not bases:
                return []  # none of them can name a knowledge base: never widen to all of them
            query += f"^kb_knowledge_baseIN{','.join(bases)}"
        return self._articles(query, fields)

    def articles_by_id(self, sys_ids: Sequence[str], *, fields: Sequence[str]) -> list[KnowledgeArticle]:
        """The articles named, whatever their state, with ARTICLE_BASE_FIELDS and `fields`; an id
        the instance does not know is simply absent."""
        found: list[KnowledgeArticle] = []
        for batch in id_batches(sys_ids):
            found += self._articles(f"sys_idIN{','.join(batch)}", fields)
        return found

    def _articles(self, query: str, fields: Sequence[str]) -> list[KnowledgeArticle]:
        wanted = list(dict.fromkeys([*ARTICLE_BASE_FIELDS, *fields]))
        rows = self.table("kb_knowledge", fields=wanted, query=query)
        return [KnowledgeArticle.from_row(row) for row in rows if field_text(row.get("sys_id"))]

    def records_by_id(self, table: str, sys_ids: Sequence[str], *, fields: Sequence[str]) -> list[dict]:
        """The records of `table` named (in batches of ID_BATCH), with `fields`."""
        found: list[dict] = []
        for batch in id_batches(sys_ids):
            found += self.table(table, fields=list(fields), query=f"sys_idIN{','.join(batch)}")
        return found

    def knowledge_base_criteria(self, relation: str, knowledge_bases: Sequence[str]) -> dict[str, list[str]]:
        """The user criteria a many-to-many table (`kb_uc_can_read_mtom`, `kb_uc_cannot_read_mtom`)
        relates to each knowledge base named: {knowledge base: [user criteria]}."""
        related: dict[str, list[str]] = {}
        for batch in id_batches(knowledge_bases):
            rows = self.table(
                relation,
                fields=["kb_knowledge_base", "user_criteria"],
                query=f"kb_knowledge_baseIN{','.join(batch)}",
            )
            for row in rows:
                base, criteria = (
                    field_text(row.get("kb_knowledge_base")),
                    field_text(row.get("user_criteria")),
                )
                if base and criteria:
                    related.setdefault(base, []).append(criteria)
        return related

    def user_groups(self, email: str) -> list[str]:
        """The sys_ids of the groups whose member the user with this e-mail address is."""
        users = list(self.table("sys_user", fields=["sys_id"], query=f"email={query_value(email)}"))
        ids = [field_text(user.get("sys_id")) for user in users]
        groups: list[str] = []
        for batch in id_batches(ids):
            rows = self.table("sys_user_grmember", fields=["group"], query=f"userIN{','.join(batch)}")
            groups += [field_text(row.get("group")) for row in rows if field_text(row.get("group"))]
        return sorted(set(groups))

    def article_attachments(self, article_ids: Sequence[str]) -> list[ArticleAttachment]:
        """The files attached to the articles named."""
        found: list[ArticleAttachment] = []
        for batch in id_batches(article_ids):
            query = f"table_name=kb_knowledge^table_sys_idIN{','.join(batch)}"
            rows = self._pages("/api/now/attachment", {"sysparm_query": query})
            found += [ArticleAttachment.from_row(row) for row in rows if field_text(row.get("sys_id"))]
        return found

    def attachment_content(self, attachment: ArticleAttachment, *, max_bytes: int, timeout_s: float) -> bytes:
        """An attachment's bytes, bounded as `VendorClient.content_get` says."""
        path = f"/api/now/attachment/{quote(attachment.sys_id, safe='')}/file"
        return self.content_get(path, max_bytes=max_bytes, timeout_s=timeout_s)


def plain_sys_ids(sys_ids: Sequence[str]) -> list[str]:
    """The ids that can go into an `IN` condition, once each: `^` and `,` cannot be escaped there,
    and a sys_id is a plain token, so anything else names no record and is dropped."""
    return list(dict.fromkeys(i for i in sys_ids if isinstance(i, str) and _SYS_ID.match(i)))


def id_batches(sys_ids: Sequence[str]) -> list[list[str]]:
    ids = plain_sys_ids(sys_ids)
    return [ids[start : start + ID_BATCH] for start in range(0, len(ids), ID_BATCH)]


def field_text(value: object) -> str:
    """A field as text; a reference the instance sent as a link object is its sys_id."""
    if isinstance(value, dict):
        value = value.get("value")
    return "" if value is None else str(value)


def updated_at(value: str) -> datetime | None:
    try:
        return datetime.strptime(value, _UPDATED_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def query_value(text: str) -> str:
    """A value inside an encoded query: `^` separates conditions and cannot be escaped, so drop it."""
    return text.replace("^", " ").strip()
