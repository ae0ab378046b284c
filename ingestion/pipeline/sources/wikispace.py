"""The wiki platform's side of a run: one space's current pages and their attachments, read with
the user name and API token that the configuration's vault credential holds (the v2 API, or v1 on
an instance without it).

Every run lists the whole space (pages and their attachments, metadata only), so a page or
attachment no longer listed is gone and leaves the index, in incremental runs too. What is fetched
is only what changed: an item whose version the index already holds is not asked for again.

Each item carries its readers (`integrations/wikispace_permissions.py` has the rule): who may view
the space, narrowed by the read restrictions of the page and its ancestors; an attachment has its
page's. They come from reads of the whole space (its permissions, the content listing with
restrictions and ancestors, bulk user lookups) plus one group-membership read per user named in a
restriction who is not named at every restricted level, so a permissions pass (a discovery that
fetches nothing) costs a few requests per space, not one per page. A page whose readers cannot be
read has none (`readers` None, `readers_error` why).
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from html import escape
from urllib.parse import urlsplit

from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.sources.base import Content, Discovery, SourceItem, covers_all
from ingestion.pipeline.sources.vault import credential_of
from integrations.errors import VendorError, VendorNotFound
from integrations.wikispace import WikiAttachment, WikiClient, WikiPage
from integrations.wikispace_permissions import (
    OPEN_SPACE,
    Restriction,
    SpaceAccess,
    Unreadable,
    group_principal,
    page_readers,
)

PLATFORM = "wikispace"
PAGE = "wikispace_article"
ATTACHMENT = "wikispace_attachment"


class WikiSource:
    platform = PLATFORM

    def __init__(self, configuration: SyncConfiguration) -> None:
        credential = credential_of(configuration)
        metadata, secrets = credential.metadata, credential.secrets
        instance_url = str(metadata.get("instance_url") or "")
        username = str(metadata.get("username") or "")
        if not instance_url or not username or not secrets.get("api_token"):
            raise RunFailed(
                f"The vault credential '{configuration.integration_id}' lacks metadata.instance_url, "
                "metadata.username or the secret api_token."
            )
        self.space_key = str((configuration.scope or {}).get("space") or "")
        self.web_url = str(metadata.get("web_url_instance") or instance_url).rstrip("/")
        self.host = urlsplit(instance_url).netloc.lower()
        self.client = WikiClient(base_url=instance_url, username=username, api_token=secrets["api_token"])
        self.pages: dict[str, WikiPage] = {}
        self.attachments: dict[str, WikiAttachment] = {}

    def close(self) -> None:
        self.client.close()

    def discover(self, *, incremental: bool, since: datetime | None, tokens: dict[str, str]) -> Discovery:
        pages = self.client.space_pages(self.space_key)
        readers = Readers(self.client, self.space_key, pages)
        found = Discovery(covers=covers_all)
        for page, attachments in zip(
            pages, self.client.fan_out(self.client.page_attachments, pages), strict=True
        ):
            self.pages[page.id] = page
            page_readers, error = readers.of(page)
            found.items.append(self._page_item(page, page_readers, error))
            for attachment in attachments:
                self.attachments[attachment.id] = attachment
                found.items.append(self._attachment_item(page, attachment, page_readers, error))
        return found

    def member_groups(self, email: str) -> set[str]:
        """The wiki groups of the person with this e-mail address (none when the wiki shows no
        account with it); the wiki's groups are flat, so membership is direct."""
        account = self.client.account_of(email)
        if account is None:
            return set()
        return {group_principal(group) for group in self.client.user_groups(account)}

    def _attachments(self, page: WikiPage) -> list[WikiAttachment]:
        """A page deleted since the listing has no attachments (it leaves the index next run)."""
        try:
            return self.client.page_attachments(page)
        except VendorNotFound:
            return []

    def content(self, item: SourceItem, *, max_bytes: int, timeout_s: float) -> Content:
        if item.content_type == ATTACHMENT:
            attachment = self.attachments[item.metadata["attachment_id"]]
            data = self.client.attachment_content(attachment, max_bytes=max_bytes, timeout_s=timeout_s)
            return Content(data=data, file_name=item.file_name, mime_type=item.mime_type)
        page = self.pages[item.metadata["page_id"]]
        html = f"<h1>{escape(page.title)}</h1>\n{self.client.page_body(page)}"
        return Content(data=html.encode("utf-8"), file_name="", mime_type="text/html")

    def _page_item(self, page: WikiPage, readers: tuple[str, ...] | None, error: str) -> SourceItem:
        return SourceItem(
            key=f"{self.host}/pages/{page.id}",
            name=page.title,
            web_url=self.web_url + page.web_path,
            content_type=PAGE,
            version=str(page.version),
            mime_type="text/html",
            modified=page.modified,
            metadata={"space_key": self.space_key, "page_id": page.id, **_when(page.modified)},
            readers=readers,
            readers_error=error,
        )

    def _attachment_item(
        self, page: WikiPage, attachment: WikiAttachment, readers: tuple[str, ...] | None, error: str
    ) -> SourceItem:
        return SourceItem(
            key=f"{self.host}/attachments/{attachment.id}",
            name=attachment.title,
            web_url=self.web_url + attachment.web_path,
            content_type=ATTACHMENT,
            version=str(attachment.version),
            file_name=attachment.title,
            mime_type=attachment.media_type,
            size=attachment.size,
            modified=attachment.modified,
            metadata={
                "space_key": self.space_key,
                "page_id": page.id,
                "attachment_id": attachment.id,
                **_when(attachment.modified),
            },
            readers=readers,
            readers_error=error,
        )


class Readers:
    """The readers of one discovery's pages, from reads made once for the whole space; what one
    page needs beyond them (a restriction the listing gave partly, an ancestor it did not list, a
    user's groups) is read once and kept for the other pages."""

    def __init__(self, client: WikiClient, space_key: str, pages: list[WikiPage]) -> None:
        self.client = client
        self.access = {page.id: page.access for page in pages if page.access is not None}
        self.failure = ""  # why no page's readers can be told, when the space's reads failed
        self.restrictions: dict[str, Restriction | str] = {}  # by content id; a str: why unreadable
        self.groups: dict[str, frozenset[str] | str] = {}  # by account id; a str: why unreadable
        self.space: SpaceAccess = OPEN_SPACE
        try:
            if len(self.access) < len(pages):  # the v2 listing has neither ancestors nor restrictions
                self.access.update(
                    (key, value)
                    for key, value in client.space_page_access(space_key).items()
                    if value is not None
                )
            self.space = client.space_access(space_key) or OPEN_SPACE
            for page_id, access in self.access.items():
                if access.restriction is not None:
                    self.restrictions[page_id] = access.restriction
            named = set(self.space.users).union(
                *(r.users for r in self.restrictions.values() if isinstance(r, Restriction))
            )
            client.look_up_emails(sorted(named - set(client.emails)))
        except VendorError as exc:
            self.failure = f"The wiki did not answer who may read the space: {exc.message}"

    def of(self, page: WikiPage) -> tuple[tuple[str, ...] | None, str]:
        """(readers, "") or (None, why not)."""
        if self.failure:
            return None, self.failure
        access = self.access.get(page.id)
        if access is None:
            return None, "The wiki's content listing did not show this page's ancestors and restrictions."
        try:
            levels = [self._restriction(content_id) for content_id in (*access.ancestors, page.id)]
            found = page_readers(
                levels,
                self.space,
                groups_of=self._groups_of,
                email_of=lambda account: self.client.emails.get(account, ""),
            )
        except Unreadable as exc:
            return None, str(exc)
        return found, ""

    def _restriction(self, content_id: str) -> Restriction:
        if content_id not in self.restrictions:
            try:
                self.restrictions[content_id] = self.client.read_restriction(content_id)
            except VendorError as exc:
                self.restrictions[content_id] = (
                    f"The wiki did not answer the read restrictions of {content_id}: {exc.message}"
                )
            else:
                self._look_up_emails()
        found = self.restrictions[content_id]
        if isinstance(found, str):
            raise Unreadable(found)
        return found

    def _look_up_emails(self) -> None:
        named = set().union(*(r.users for r in self.restrictions.values() if isinstance(r, Restriction)))
        with contextlib.suppress(VendorError):  # an unknown e-mail fails only the pages that need it
            self.client.look_up_emails(sorted(named - set(self.client.emails)))

    def _groups_of(self, account: str) -> frozenset[str]:
        if account not in self.groups:
            try:
                self.groups[account] = self.client.user_groups(account)
            except VendorError as exc:
                self.groups[account] = f"The wiki did not answer the groups of user {account}: {exc.message}"
        found = self.groups[account]
        if isinstance(found, str):
            raise Unreadable(found)
        return found


def _when(modified: datetime | None) -> dict:
    return {"last_modified": modified.isoformat() if modified else None}
