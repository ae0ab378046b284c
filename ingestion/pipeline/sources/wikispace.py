"""The wiki platform's side of a run: one space's current pages and their attachments, read with
the user name and API token that the configuration's vault credential holds (the v2 API, or v1 on
an instance without it).

Every run lists the whole space (pages and their attachments, metadata only), so a page or
attachment no longer listed is gone and leaves the index, in incremental runs too. What is fetched
is only what changed: an item whose version the index already holds is not asked for again.
"""

from __future__ import annotations

from datetime import datetime
from html import escape
from urllib.parse import urlsplit

from core.readers import EVERYONE
from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.sources.base import Content, Discovery, SourceItem, covers_all
from ingestion.pipeline.sources.vault import credential_of
from integrations.errors import VendorNotFound
from integrations.wikispace import WikiAttachment, WikiClient, WikiPage

PLATFORM = "wikispace"
PAGE = "wikispace_article"
# Readers until the pages' permissions are captured here: everyone of the tenant, as before.
UNCAPTURED = (EVERYONE,)
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
        found = Discovery(covers=covers_all)
        for page, attachments in zip(
            pages, self.client.fan_out(self.client.page_attachments, pages), strict=True
        ):
            self.pages[page.id] = page
            found.items.append(self._page_item(page))
            for attachment in attachments:
                self.attachments[attachment.id] = attachment
                found.items.append(self._attachment_item(page, attachment))
        return found

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

    def _page_item(self, page: WikiPage) -> SourceItem:
        return SourceItem(
            key=f"{self.host}/pages/{page.id}",
            name=page.title,
            web_url=self.web_url + page.web_path,
            content_type=PAGE,
            readers=UNCAPTURED,
            version=str(page.version),
            mime_type="text/html",
            modified=page.modified,
            metadata={"space_key": self.space_key, "page_id": page.id, **_when(page.modified)},
        )

    def _attachment_item(self, page: WikiPage, attachment: WikiAttachment) -> SourceItem:
        return SourceItem(
            key=f"{self.host}/attachments/{attachment.id}",
            name=attachment.title,
            web_url=self.web_url + attachment.web_path,
            content_type=ATTACHMENT,
            readers=UNCAPTURED,
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
        )


def _when(modified: datetime | None) -> dict:
    return {"last_modified": modified.isoformat() if modified else None}
