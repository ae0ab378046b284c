"""The platforms a run reads (`source_open`): one module each, the same `Source` interface."""

from __future__ import annotations

from ingestion.models import Platform, SyncConfiguration
from ingestion.pipeline.sources.base import Content, Discovery, Source, SourceItem
from ingestion.pipeline.sources.itsm import ItsmSource
from ingestion.pipeline.sources.sitelib import SitelibSource
from ingestion.pipeline.sources.wikispace import WikiSource

SOURCES = {Platform.SITELIB: SitelibSource, Platform.WIKISPACE: WikiSource, Platform.ITSMPLATFORM: ItsmSource}


def source_open(configuration: SyncConfiguration) -> Source:
    """The platform side of a run of `configuration`, authenticated with its vault credential
    (RunFailed when that cannot be used). Close it when the run ends."""
    return SOURCES[configuration.platform](configuration)


__all__ = ["Content", "Discovery", "Source", "SourceItem", "source_open"]
