"""What a platform gives the pipeline: the items of a run's scope (`SourceItem`), found by a
`Source`'s discovery, and each item's content, fetched when the item changed.

Each platform is one module here (`sitelib`, `wikispace`, `itsm`) with a `Source` built in the
worker from its configuration's vault credential. The stages after discovery (fetch, extract,
chunk, embed, store) are the same for every platform.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from knowledge.models import Document


@dataclass(frozen=True)
class SourceItem:
    """One item of a platform: a file, a wiki page or attachment, a knowledge article or its
    attachment. `key` is its id in the knowledge base and the failed-file store (unique within the
    tenant's documents of the platform)."""

    key: str
    name: str  # the title or file name people see
    web_url: str  # the platform's web address of the item (a space's or site's URL is a prefix)
    content_type: str  # <platform>_article or <platform>_attachment
    version: str = ""  # changes whenever the content does ("" unknown): unchanged items are not fetched
    file_name: str = ""  # what extraction reads the content as ("" with `mime_type`: a page of HTML)
    mime_type: str = ""
    size: int | None = None  # bytes, when the platform says before downloading
    modified: datetime | None = None
    metadata: dict = field(default_factory=dict)  # the platform's ids, kept on the document
    # The source principals that may read the item at the platform (sorted, distinct), or None when
    # its permissions could not be read (`readers_error` says why).
    readers: tuple[str, ...] | None = ()
    readers_error: str = ""


@dataclass(frozen=True)
class Content:
    """An item's content as fetched: bytes, read by extraction as `file_name` / `mime_type`."""

    data: bytes
    file_name: str
    mime_type: str


def _nothing(document: Document) -> bool:
    return False


def covers_all(document: Document) -> bool:
    """`Discovery.covers` of a source that lists its whole scope on every run."""
    return True


@dataclass
class Discovery:
    """What a run found: the items in scope (changed or not), the items the platform says were
    deleted, the platform's change tokens to keep when the run ends well, and which of the
    configuration's indexed documents the discovery would have found if they still existed (those
    it did not find are gone from the source and leave the index)."""

    items: list[SourceItem] = field(default_factory=list)
    deleted: list[SourceItem] = field(default_factory=list)
    delta_tokens: dict[str, str] = field(default_factory=dict)
    covers: Callable[[Document], bool] = _nothing


class Source(Protocol):
    """A platform's side of a run. `content` runs in the pipeline's reading threads: no database
    there, only the platform's client."""

    platform: str

    def discover(self, *, incremental: bool, since: datetime | None, tokens: dict[str, str]) -> Discovery: ...

    def content(self, item: SourceItem, *, max_bytes: int, timeout_s: float) -> Content: ...

    def close(self) -> None: ...
