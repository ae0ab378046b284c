"""What every stage of one run needs to know."""

from __future__ import annotations

from dataclasses import dataclass

from core.models import Tenant
from ingestion.models import SyncConfiguration, SyncRun
from ingestion.pipeline.sources import Source, SourceItem
from knowledge.embeddings import Embedder
from knowledge.selectors import SourceRules


@dataclass
class RunContext:
    run: SyncRun
    holder: str  # the attempt that holds the run (its lease)
    configuration: SyncConfiguration
    tenant: Tenant
    source: Source
    embedder: Embedder
    audience: list[str]
    use_ocr: bool
    rules: SourceRules  # the tenant's block list when the configuration is `blacklisted`, else none
    keep_readers: bool  # `source_restriction`: documents keep the platform's read permissions

    @property
    def platform(self) -> str:
        return self.source.platform

    def blocked(self, item: SourceItem) -> bool:
        return self.rules.url_blocked(item.web_url)

    def readers(self, item: SourceItem) -> list[str]:
        return list(item.readers or ())
