"""The fake ITSM instance with what knowledge ingestion reads: knowledge articles by encoded query
(`workflow_state=published`, `kb_knowledge_baseIN...`, `sys_idIN...`, joined by `^`) with offset
paging, and the Attachment API (metadata by query, and each file's bytes). The tool hub's LIKE
search of articles keeps answering as in `FakeItsmTools`. Tests add, edit, retire and delete
articles and attachments, make downloads fail, and ask what crossed the network.

Who may read an article, as the platform keeps it: people (`sys_user`), groups and their members
(`sys_user_group`, `sys_user_grmember`), user criteria (`user_criteria`: comma-separated sys_ids
in `user` and `group`, other conditions as text, `match_all` and `advanced` as "true"/"false"),
and the knowledge bases' can-read and cannot-read criteria (`kb_uc_can_read_mtom`,
`kb_uc_cannot_read_mtom`), all read through the Table API; a table can be refused (403)."""

from __future__ import annotations

import itertools
import re
import uuid
from datetime import UTC, datetime, timedelta

from tests.fakes.itsm import FakeKb
from tests.fakes.itsm_tools import FakeItsmTools
from tests.fakes.server import Received, Reply, route

UPDATED_FORMAT = "%Y-%m-%d %H:%M:%S"
# One condition of an encoded query: a lower-case field, then `=` or `IN` (upper case), then the value.
_CONDITION = re.compile(r"^(?P<field>[a-z0-9_]+)(?P<op>=|IN)(?P<value>.*)$")
PERMISSION_TABLES = (
    "sys_user",
    "sys_user_group",
    "sys_user_grmember",
    "user_criteria",
    "kb_uc_can_read_mtom",
    "kb_uc_cannot_read_mtom",
)


class FakeItsmContent(FakeItsmTools):
    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.attachments: dict[str, dict] = {}
        self.files: dict[str, bytes] = {}
        self.failing_downloads: set[str] = set()  # attachment sys_ids answered 500
        self._numbers = itertools.count(10001)
        self._text_sent: list[set[str]] = []
        self.tables: dict[str, list[dict]] = {table: [] for table in PERMISSION_TABLES}
        self.refused_tables: set[str] = set()  # answered 403, as to an account without the role

    # ---- people, groups and user criteria
    def _row(self, table: str, **fields) -> dict:
        row = {"sys_id": uuid.uuid4().hex} | {name: str(value) for name, value in fields.items()}
        self.tables[table].append(row)
        return row

    def add_person(self, email: str) -> dict:
        return self._row("sys_user", email=email, user_name=email.split("@")[0])

    def add_group(self, name: str) -> dict:
        return self._row("sys_user_group", name=name)

    def add_member(self, person: dict, group: dict) -> dict:
        return self._row("sys_user_grmember", user=person["sys_id"], group=group["sys_id"])

    def remove_member(self, person: dict, group: dict) -> None:
        rows = self.tables["sys_user_grmember"]
        rows[:] = [r for r in rows if (r["user"], r["group"]) != (person["sys_id"], group["sys_id"])]

    def add_criteria(self, *, users=(), groups=(), match_all=False, advanced=False, **conditions) -> dict:
        """A user criteria record naming people and groups; other conditions (role="itil") as text."""
        return self._row(
            "user_criteria",
            user=",".join(p["sys_id"] for p in users),
            group=",".join(g["sys_id"] for g in groups),
            match_all=str(match_all).lower(),
            advanced=str(advanced).lower(),
            **conditions,
        )

    def relate_kb(self, kb: FakeKb, criteria: dict, *, cannot: bool = False) -> None:
        table = "kb_uc_cannot_read_mtom" if cannot else "kb_uc_can_read_mtom"
        self._row(table, kb_knowledge_base=kb.sys_id, user_criteria=criteria["sys_id"])

    def permission_requests(self) -> int:
        """Requests for any of the permission tables."""
        return len(self.requests_to(rf"^/api/now/table/({'|'.join(PERMISSION_TABLES)})$"))

    # ---- articles
    def add_article(self, kb: FakeKb, title: str, text: str, **fields) -> dict:
        """A published article of `kb` (unless `workflow_state` says otherwise), updated now; any
        other field (can_read_user_criteria="crit-a,crit-b", u_market="EU") is stored as text."""
        row = {
            "sys_id": uuid.uuid4().hex,
            "number": f"KB{next(self._numbers):07d}",
            "short_description": title,
            "text": text,
            "kb_knowledge_base": kb.sys_id,
            "workflow_state": "published",
            "sys_updated_on": _stamp(_now()),
        } | {name: str(value) for name, value in fields.items()}
        self.articles.append(row)
        kb.articles += 1
        return row

    def article(self, sys_id: str) -> dict:
        return next(row for row in self.articles if row["sys_id"] == sys_id)

    def edit_article(self, sys_id: str, **fields) -> dict:
        """Change fields; sys_updated_on moves to now, and always later than before."""
        row = self.article(sys_id)
        row.update({name: str(value) for name, value in fields.items()})
        row["sys_updated_on"] = _later(row["sys_updated_on"])
        return row

    def retire_article(self, sys_id: str) -> dict:
        return self.edit_article(sys_id, workflow_state="retired")

    def delete_article(self, sys_id: str) -> None:
        """The article goes, and its attachments with it (as the platform cascades)."""
        row = self.article(sys_id)
        self.articles.remove(row)
        for kb in self.kbs:
            if kb.sys_id == row["kb_knowledge_base"]:
                kb.articles -= 1
        for attachment_id in [a for a, meta in self.attachments.items() if meta["table_sys_id"] == sys_id]:
            self.delete_attachment(attachment_id)

    # ---- attachments
    def add_attachment(self, article: dict, file_name: str, content: bytes, content_type: str) -> dict:
        meta = {
            "sys_id": uuid.uuid4().hex,
            "file_name": file_name,
            "content_type": content_type,
            "size_bytes": str(len(content)),
            "table_name": "kb_knowledge",
            "table_sys_id": article["sys_id"],
            "sys_updated_on": _stamp(_now()),
        }
        self.attachments[meta["sys_id"]] = meta
        self.files[meta["sys_id"]] = content
        return meta

    def replace_attachment(self, sys_id: str, content: bytes) -> dict:
        meta = self.attachments[sys_id]
        meta["size_bytes"] = str(len(content))
        meta["sys_updated_on"] = _later(meta["sys_updated_on"])
        self.files[sys_id] = content
        return meta

    def delete_attachment(self, sys_id: str) -> None:
        del self.attachments[sys_id]
        del self.files[sys_id]

    # ---- what crossed the network
    def article_text_requests(self) -> list[set[str]]:
        """Per answered article request that carried the `text` field, the ids it carried it for."""
        with self._lock:
            return [set(ids) for ids in self._text_sent]

    def fetched_article_ids(self) -> list[str]:
        """Every id whose article text was sent, once per time it was sent."""
        return [sys_id for ids in self.article_text_requests() for sys_id in sorted(ids)]

    def download_requests(self, sys_id: str) -> int:
        return len(self.requests_to(rf"^/api/now/attachment/{re.escape(sys_id)}/file$"))

    # ---- routes
    @route("GET", r"/api/now/table/kb_knowledge")
    def article_query(self, request: Received) -> Reply:
        query = _first(request, "sysparm_query")
        if "LIKE" in query:  # the tool hub's search
            return super().article_query(request)
        return self._authorized(request) or self._list(request, self.articles, self._note_text_sent)

    @route("GET", rf"/api/now/table/(?P<table>{'|'.join(PERMISSION_TABLES)})")
    def permission_table(self, request: Received, table: str) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        if table in self.refused_tables:
            detail = {"message": "User Not Authorized", "detail": "Insufficient rights to query records"}
            return Reply(403, {"error": detail, "status": "failure"})
        return self._list(request, self.tables[table])

    @route("GET", r"/api/now/attachment")
    def attachment_query(self, request: Received) -> Reply:
        return self._authorized(request) or self._list(request, list(self.attachments.values()))

    @route("GET", r"/api/now/attachment/(?P<sys_id>[^/]+)/file")
    def attachment_file(self, request: Received, sys_id: str) -> Reply:
        refusal = self._authorized(request)
        if refusal:
            return refusal
        if sys_id in self.failing_downloads:
            return Reply(500, {"error": {"message": "Attachment storage failed"}, "status": "failure"})
        if sys_id not in self.files:
            return Reply(404, {"error": {"message": "Record doesn't exist"}, "status": "failure"})
        return Reply(200, self.files[sys_id], {"Content-Type": self.attachments[sys_id]["content_type"]})

    def _list(self, request: Received, rows: list[dict], sent=None) -> Reply:
        """The rows matching `sysparm_query`, a page of them from `sysparm_offset` (at most
        `page_size`), cut to `sysparm_fields`, with the match count in X-Total-Count."""
        conditions = _conditions(_first(request, "sysparm_query"))
        if conditions is None:
            return Reply(400, {"error": {"message": "Invalid encoded query"}, "status": "failure"})
        matching = [row for row in rows if all(test(row) for test in conditions)]
        offset = int(_first(request, "sysparm_offset") or 0)
        limit = min(int(_first(request, "sysparm_limit") or 100), self.page_size)
        page = [_only(row, _first(request, "sysparm_fields")) for row in matching[offset : offset + limit]]
        if sent is not None:
            sent(page)
        return Reply(200, {"result": page}, {"X-Total-Count": str(len(matching))})

    def _note_text_sent(self, page: list[dict]) -> None:
        if page and "text" in page[0]:
            with self._lock:
                self._text_sent.append({row["sys_id"] for row in page if "sys_id" in row})


def _conditions(query: str) -> list | None:
    """Tests for the `^`-joined `field=value` and `fieldINa,b` conditions; None when one is neither."""
    tests = []
    for part in filter(None, query.split("^")):
        match = _CONDITION.match(part)
        if match is None:
            return None
        field, op, value = match.group("field", "op", "value")
        wanted = set(value.split(",")) if op == "IN" else {value}
        tests.append(lambda row, field=field, wanted=wanted: row.get(field) in wanted)
    return tests


def _first(request: Received, name: str) -> str:
    return (request.query.get(name) or [""])[0]


def _only(row: dict, fields: str) -> dict:
    return {k: v for k, v in row.items() if not fields or k in fields.split(",")}


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _stamp(moment: datetime) -> str:
    return moment.strftime(UPDATED_FORMAT)


def _later(stamp: str) -> str:
    """Now, or a second past `stamp` when now is not later (two edits within one second)."""
    before = datetime.strptime(stamp, UPDATED_FORMAT).replace(tzinfo=UTC)
    return _stamp(max(_now(), before + timedelta(seconds=1)))
