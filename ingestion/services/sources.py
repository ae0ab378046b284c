"""Deleting what was ingested from a source (DESIGN section 15): every document at or under a URL,
with its chunks, in one transaction with its audit entry."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from adminops.audit import audit_record
from adminops.models import Tenant
from config.api.errors import ResourceNotFound
from config.api.timestamps import iso_ms
from knowledge.vectors import documents_delete_by_url_prefix


def knowledge_source_delete(*, tenant: Tenant, source_url: str, actor: dict, request_id: str | None) -> dict:
    """Remove the tenant's documents at `source_url` or beneath it (a folder, drive or site URL
    covers everything under it); 404 when the tenant has nothing indexed there. Irreversible:
    ingest again to restore."""
    with transaction.atomic():
        documents, vectors = documents_delete_by_url_prefix(tenant=tenant, prefix=source_url)
        if not documents:
            raise ResourceNotFound("Nothing of this tenant is indexed at or under this source_url.")
        audit_record(
            tenant=tenant,
            action="KNOWLEDGE_SOURCE_DELETED",
            category="ingestion",
            actor=actor,
            resource={"type": "knowledge_source", "id": source_url[:500], "name": source_url[:255]},
            details={"documentsDeleted": documents, "vectorsRemoved": vectors},
            request_id=request_id,
        )
    return {
        "source_url": source_url,
        "documents_deleted": documents,
        "vectors_removed": vectors,
        "deleted_at": iso_ms(timezone.now()),
    }
