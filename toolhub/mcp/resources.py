"""The knowledge base's documents as MCP resources (DESIGN section 16): `resources/list` (newest
first, in pages), `resources/templates/list` (`kb://documents/{document_id}`) and `resources/read`
(the title, source URL and text as `text/plain`).

A caller sees the documents it may read at their source (`knowledge.selectors.documents_readable`
with its `identity.sources.source_identities`, the same answer search gets) if it may search at
all (`knowledge:read`); for anyone else there are none. A document
the caller may not read does not exist for it: reading it is the error an unknown one gets.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.core import signing
from mcp import types
from mcp.shared.uri_template import UriTemplate

from core.api.timestamps import iso_ms
from identity.sources import source_identities
from knowledge.models import Document
from knowledge.selectors import document_readable_get, document_text, documents_newest_first
from toolhub.mcp.wire import McpCaller, McpRequest, ProtocolError

TEMPLATE = "kb://documents/{document_id}"
DOCUMENT_URI = UriTemplate.parse(TEMPLATE)
PAGE_SIZE = 50
MIME_TYPE = "text/plain"
_CURSOR_SALT = "toolhub.mcp.resources.cursor"


def resources_list(caller: McpCaller, request: McpRequest):
    after = _position(request.message.params.cursor if request.message.params else None)
    if not _may_read(caller):
        return types.ListResourcesResult(resources=[]), False
    page = documents_newest_first(
        tenant=caller.tenant, identities=_identities(caller), after=after, limit=PAGE_SIZE + 1
    )
    more = len(page) > PAGE_SIZE
    page = page[:PAGE_SIZE]
    result = types.ListResourcesResult(
        resources=[_resource(document) for document in page],
        next_cursor=_cursor(page[-1]) if more else None,
    )
    return result, False


def resource_templates_list(caller: McpCaller, request: McpRequest):
    cursor = request.message.params.cursor if request.message.params else None
    if cursor is not None:  # one page: no cursor was ever handed out
        raise _unknown_cursor(cursor)
    template = types.ResourceTemplate(
        uri_template=TEMPLATE,
        name="knowledge-document",
        title="Knowledge base document",
        description="A document of the knowledge base by its id (doc-<uuid>, as search results name "
        "it): its title, source URL and text.",
        mime_type=MIME_TYPE,
    )
    return types.ListResourceTemplatesResult(resource_templates=[template]), False


def resource_read(caller: McpCaller, request: McpRequest):
    uri = request.message.params.uri
    named = DOCUMENT_URI.match(uri)
    document = None
    if named is not None and isinstance(named.get("document_id"), str) and _may_read(caller):
        document = document_readable_get(
            tenant=caller.tenant, document_id=named["document_id"], identities=_identities(caller)
        )
    if document is None:
        raise ProtocolError(types.INVALID_PARAMS, "Resource not found", {"uri": uri})
    contents = types.TextResourceContents(
        uri=uri,
        mime_type=MIME_TYPE,
        text=f"Title: {document.title}\nSource: {document.source_url}\n\n{document_text(document=document)}",
        meta=_about(document),
    )
    return types.ReadResourceResult(contents=[contents]), False


def _identities(caller: McpCaller):
    return source_identities(caller.principal, caller.tenant)


def _may_read(caller: McpCaller) -> bool:
    return caller.principal.has_scope("knowledge:read")


def _resource(document: Document) -> types.Resource:
    return types.Resource(
        uri=DOCUMENT_URI.expand({"document_id": document.public_id}),
        name=document.public_id,
        title=document.title or document.source_url,
        description=document.source_url,
        mime_type=MIME_TYPE,
        annotations=types.Annotations(last_modified=iso_ms(document.updated_at)),
        meta=_about(document),
    )


def _about(document: Document) -> dict:
    return {
        "document_id": document.public_id,
        "source_url": document.source_url,
        "platform_type": document.platform_type,
        "content_type": document.content_type,
    }


def _cursor(document: Document) -> str:
    """Where the next page starts: after this document. Signed, so a cursor is one we handed out."""
    return signing.dumps([document.updated_at.isoformat(), str(document.id)], salt=_CURSOR_SALT)


def _position(cursor: str | None) -> tuple | None:
    if cursor is None:
        return None
    try:
        updated_at, document_id = signing.loads(cursor, salt=_CURSOR_SALT)
        return datetime.fromisoformat(updated_at), uuid.UUID(document_id)
    except (signing.BadSignature, ValueError, TypeError):
        raise _unknown_cursor(cursor) from None


def _unknown_cursor(cursor: str) -> ProtocolError:
    return ProtocolError(types.INVALID_PARAMS, "Unknown cursor.", {"cursor": cursor})
