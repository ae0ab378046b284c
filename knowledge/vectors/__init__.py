"""The knowledge base's vector store (DESIGN section 15; docs/ingestion.md, "Vector store").

Every operation is keyword-only and takes the tenant first: the tenant is the namespace, and no
operation reads or removes another tenant's rows. Writes are ORM code shared by both databases; the
one vendor-dependent step, ranking chunks by cosine similarity, is `ranking.nearest`.
"""

from knowledge.vectors.audience import audience_tags, audience_visible, readers_tags, readers_visible
from knowledge.vectors.prefixes import url_key, url_prefix
from knowledge.vectors.store import (
    Hit,
    chunks_count,
    chunks_search,
    document_delete,
    document_upsert,
    documents_delete_by_url_prefix,
    documents_delete_of_configuration,
    documents_delete_where,
)

__all__ = [
    "Hit",
    "audience_tags",
    "audience_visible",
    "chunks_count",
    "chunks_search",
    "document_delete",
    "document_upsert",
    "documents_delete_by_url_prefix",
    "documents_delete_of_configuration",
    "documents_delete_where",
    "readers_tags",
    "readers_visible",
    "url_key",
    "url_prefix",
]
