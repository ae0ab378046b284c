"""Knowledge tools (`knowledge`): search of the tenant's own knowledge base, in this service. A
`knowledge` connection has no vendor and no credential; its client is `KnowledgeBase`."""

from __future__ import annotations

from collections.abc import Collection

from core.models import Tenant
from integrations.errors import VendorUnavailable
from knowledge.embeddings import EmbeddingFailed
from knowledge.models import PLATFORM_TYPES
from knowledge.selectors import documents_search
from knowledge.vectors.store import HYBRID, SEARCH_MODES
from toolhub.registry import tool_define


class KnowledgeBase:
    """The `knowledge` connector's client: the connection's tenant's knowledge base, as the caller
    may read it. A query that cannot be embedded fails like an unavailable vendor (`UPSTREAM_ERROR`)."""

    def __init__(self, *, tenant: Tenant, identities: Collection[str] | None) -> None:
        self.tenant = tenant
        self.identities = identities  # the caller's source identities (`identity.sources`)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def search(self, **criteria) -> dict:
        try:
            return documents_search(tenant=self.tenant, identities=self.identities, **criteria)
        except EmbeddingFailed as exc:
            raise VendorUnavailable(f"The query could not be embedded: {exc}", platform="knowledge") from exc

    def probe(self) -> None:
        """The connection test: one real search (it loads the embedding model if need be)."""
        self.search(query="connection test", top_k=1)


RESULT = {
    "type": "object",
    "required": ["document_id", "title", "source_url", "platform_type", "content_type", "chunk", "score"],
    "properties": {
        "document_id": {"type": "string"},
        "title": {"type": "string"},
        "source_url": {"type": "string"},
        "platform_type": {"type": "string"},
        "content_type": {"type": "string"},
        "chunk": {"type": "string"},
        "score": {"type": "number"},
    },
}


def documents_search_tool(client: KnowledgeBase, args: dict) -> dict:
    return client.search(
        query=args["query"],
        top_k=args.get("top_k", 5),
        platform_types=args.get("platform_types"),
        audience=args.get("audience"),
        mode=args.get("mode", HYBRID),
    )


tool_define(
    "knowledge.documents.search",
    "Search the knowledge base",
    "Passages of the tenant's ingested documents that best answer the query, best first: by meaning and "
    "words (mode hybrid, the default; identifiers such as ticket numbers and error codes first), by "
    "meaning only (semantic) or by words only (keyword).",
    "read",
    {
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 2000, "pattern": "\\S"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
            "platform_types": {
                "type": "array",
                "items": {"enum": list(PLATFORM_TYPES)},
                "minItems": 1,
                "uniqueItems": True,
            },
            "audience": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 255},
                "maxItems": 100,
            },
            "mode": {"enum": list(SEARCH_MODES), "default": HYBRID},
        },
    },
    {
        "type": "object",
        "required": ["results", "model", "mode"],
        "properties": {
            "results": {"type": "array", "items": RESULT},
            "model": {"type": "string"},
            "mode": {"enum": list(SEARCH_MODES)},
        },
    },
    documents_search_tool,
)
