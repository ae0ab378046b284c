"""Deleting what was ingested from a source (DESIGN section 15): every document at or under a URL,
or every document of a wiki space or of knowledge bases, with its chunks, in one transaction with
its audit entry."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from core.api.errors import ResourceNotFound
from core.api.timestamps import iso_ms
from core.audit import audit_record
from core.models import Tenant
from knowledge.vectors.store import documents_delete_by_url_prefix, documents_delete_where


def knowledge_source_delete(*, tenant: Tenant, source_url: str, actor: dict, request_id: str | None) -> dict:
    """Remove the tenant's documents at `source_url` or beneath it (a folder, drive, site or space
    URL covers everything under it); 404 when the tenant has nothing indexed there. Irreversible:
    ingest again to restore."""
    with transaction.atomic():
        documents, vectors = documents_delete_by_url_prefix(tenant=tenant, prefix=source_url)
        if not documents:
            raise ResourceNotFound("Nothing of this tenant is indexed at or under this source_url.")
        _audit(tenant, documents, vectors, source_url[:500], actor, request_id)
    return _answer(documents, vectors, source_url=source_url)


def knowledge_documents_delete_where(
    *,
    tenant: Tenant,
    platform_type: str,
    key: str,
    values: Sequence[str],
    actor: dict,
    request_id: str | None,
) -> dict:
    """Remove the tenant's documents of the platform whose `key` (`space_key`, `knowledge_base`) is
    one of `values`; 404 when there are none."""
    with transaction.atomic():
        documents, vectors = documents_delete_where(
            tenant=tenant, platform_type=platform_type, key=key, values=list(values)
        )
        if not documents:
            raise ResourceNotFound(f"Nothing of this tenant is indexed with that {key}.")
        what = f"{platform_type}:{key}={','.join(values)}"[:500]
        _audit(tenant, documents, vectors, what, actor, request_id)
    return _answer(documents, vectors, source_url=None)


def _audit(tenant: Tenant, documents: int, vectors: int, what: str, actor: dict, request_id) -> None:
    audit_record(
        tenant=tenant,
        action="KNOWLEDGE_SOURCE_DELETED",
        category="ingestion",
        actor=actor,
        resource={"type": "knowledge_source", "id": what, "name": what[:255]},
        details={"documentsDeleted": documents, "vectorsRemoved": vectors},
        request_id=request_id,
    )


def _answer(documents: int, vectors: int, *, source_url: str | None) -> dict:
    return {
        "source_url": source_url,
        "documents_deleted": documents,
        "vectors_removed": vectors,
        "deleted_at": iso_ms(timezone.now()),
    }
