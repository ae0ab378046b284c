"""The IT-service platform's side of a run: the published articles of the configuration's knowledge
bases (all the account can read when it names none) and their attachments, read with the account
that the configuration's vault credential holds (OAuth with a refresh token or the password grant
when it has a client id and secret, HTTP Basic otherwise).

Every run lists the articles and attachments (metadata only), so one no longer listed (deleted,
retired, moved out of the knowledge bases) leaves the index, in incremental runs too; only what
changed (`sys_updated_on`) is fetched. An article's text is its title, its `text` and the other
fields the configuration names (`article_query_names`). Its readers come from its user criteria
(`itsm_readers`), read in the same discovery; its attachments share them.
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from core.readers import group_principal
from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.sources.base import Content, Discovery, SourceItem, covers_all
from ingestion.pipeline.sources.itsm_readers import ARTICLE_FIELDS, criteria_read
from ingestion.pipeline.sources.vault import credential_of
from integrations.errors import VendorNotFound
from integrations.itsm import ArticleAttachment, ItsmClient, ItsmCredentials, KnowledgeArticle

PLATFORM = "itsmplatform"
ARTICLE = "itsmplatform_article"
ATTACHMENT = "itsmplatform_attachment"
# Fields that make up an article's text or its bookkeeping: never added again as "name: value".
NOT_TEXT = {
    "sys_id",
    "number",
    "short_description",
    "text",
    "sys_updated_on",
    "kb_knowledge_base",
    *ARTICLE_FIELDS,
}


class ItsmSource:
    platform = PLATFORM

    def __init__(self, configuration: SyncConfiguration) -> None:
        credential = credential_of(configuration)
        metadata, secrets = credential.metadata, credential.secrets
        self.domain = str(metadata.get("itsmplatform_domain") or "")
        username, password = str(metadata.get("username") or ""), secrets.get("password", "")
        if not self.domain or not username:
            raise RunFailed(
                f"The vault credential '{configuration.integration_id}' lacks "
                "metadata.itsmplatform_domain or metadata.username."
            )
        client_id, client_secret = str(metadata.get("client_id") or ""), secrets.get("client_secret", "")
        if client_id and client_secret:
            credentials = ItsmCredentials(
                username=username,
                password=password,
                client_id=client_id,
                client_secret=client_secret,
                refresh_token=secrets.get("refresh_token", ""),
            )
            self.client = ItsmClient(instance=self.domain, credentials=credentials)
        else:
            self.client = ItsmClient(instance=self.domain, basic_auth=(username, password))
        scope = configuration.scope or {}
        self.knowledge_bases = [str(kb) for kb in scope.get("knowledge_bases") or []]
        self.fields = [str(name) for name in scope.get("article_query_names") or []]
        self.articles: dict[str, KnowledgeArticle] = {}
        self.attachments: dict[str, ArticleAttachment] = {}

    def close(self) -> None:
        self.client.close()

    def discover(self, *, incremental: bool, since: datetime | None, tokens: dict[str, str]) -> Discovery:
        articles = self.client.articles(knowledge_bases=self.knowledge_bases, fields=ARTICLE_FIELDS)
        criteria = criteria_read(self.client, articles)
        found = Discovery(covers=covers_all)
        readers = {}
        for article in articles:
            self.articles[article.sys_id] = article
            readers[article.sys_id] = criteria.article_readers(article)
            found.items.append(self._article_item(article, *readers[article.sys_id]))
        for attachment in self.client.article_attachments([a.sys_id for a in articles]):
            article = self.articles.get(attachment.article_id)
            if article is not None:
                self.attachments[attachment.sys_id] = attachment
                found.items.append(self._attachment_item(article, attachment, *readers[article.sys_id]))
        return found

    def member_groups(self, email: str) -> set[str]:
        """The groups of the person with this e-mail address on the platform."""
        return {group_principal(PLATFORM, group) for group in self.client.user_groups(email)}

    def content(self, item: SourceItem, *, max_bytes: int, timeout_s: float) -> Content:
        if item.content_type == ATTACHMENT:
            attachment = self.attachments[item.metadata["attachment_id"]]
            data = self.client.attachment_content(attachment, max_bytes=max_bytes, timeout_s=timeout_s)
            return Content(data=data, file_name=item.file_name, mime_type=item.mime_type)
        sys_id = item.metadata["article_id"]
        found = self.client.articles_by_id([sys_id], fields=["text", *self.fields])
        if not found:
            raise VendorNotFound("The article is no longer on the platform.", platform=PLATFORM)
        return Content(data=_article_html(found[0]).encode("utf-8"), file_name="", mime_type="text/html")

    def _url(self, path: str) -> str:
        return f"https://{self.domain}/{path}"

    def _article_item(self, article: KnowledgeArticle, readers, readers_error: str) -> SourceItem:
        return SourceItem(
            key=f"{self.domain}/kb_knowledge/{article.sys_id}",
            name=article.title or article.number,
            web_url=self._url(f"kb_view.do?sysparm_article={article.number}"),
            content_type=ARTICLE,
            version=_stamp(article.updated),
            mime_type="text/html",
            modified=article.updated,
            metadata={
                "knowledge_base": article.knowledge_base,
                "article_id": article.sys_id,
                "number": article.number,
                "last_modified": _stamp(article.updated) or None,
            },
            readers=readers,
            readers_error=readers_error,
        )

    def _attachment_item(
        self, article: KnowledgeArticle, attachment: ArticleAttachment, readers, readers_error: str
    ) -> SourceItem:
        return SourceItem(
            key=f"{self.domain}/sys_attachment/{attachment.sys_id}",
            name=attachment.file_name,
            web_url=self._url(f"sys_attachment.do?sys_id={attachment.sys_id}"),
            content_type=ATTACHMENT,
            version=f"{_stamp(attachment.updated)}/{attachment.size}",
            file_name=attachment.file_name,
            mime_type=attachment.content_type,
            size=attachment.size,
            modified=attachment.updated,
            metadata={
                "knowledge_base": article.knowledge_base,
                "article_id": article.sys_id,
                "attachment_id": attachment.sys_id,
                "last_modified": _stamp(attachment.updated) or None,
            },
            readers=readers,
            readers_error=readers_error,
        )


def _stamp(moment: datetime | None) -> str:
    return moment.isoformat() if moment else ""


def _article_html(article: KnowledgeArticle) -> str:
    """The title, the article's own HTML, then each other field asked for as a line of text."""
    parts = [f"<h1>{escape(article.title)}</h1>", article.fields.get("text") or ""]
    for name, value in article.fields.items():
        if name not in NOT_TEXT and value:
            parts.append(f"<p>{escape(name)}: {escape(str(value))}</p>")
    return "\n".join(parts)
