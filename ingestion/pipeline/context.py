"""What every stage of one run needs to know."""

from __future__ import annotations

from dataclasses import dataclass

from adminops.models import Tenant
from ingestion.models import SyncConfiguration, SyncRun
from integrations.sitelib import DriveItem, SitelibClient
from knowledge.embeddings import Embedder

PLATFORM = "sitelib"
CONTENT_TYPE = "sitelib_attachment"  # a drive's files are attachments (DESIGN section 10)


@dataclass
class RunContext:
    run: SyncRun
    holder: str  # the attempt that holds the run (its lease)
    configuration: SyncConfiguration
    tenant: Tenant
    client: SitelibClient
    embedder: Embedder
    audience: list[str]
    use_ocr: bool


def source_id_of(item: DriveItem) -> str:
    """A drive item's id in the knowledge base and the failed-file store: item ids are unique
    within their drive."""
    return f"{item.drive_id}/{item.id}"
