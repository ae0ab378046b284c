"""How a stage says that one item failed (the run goes on) or that the run cannot go on."""

from __future__ import annotations


class ItemFailed(Exception):
    """One item could not be ingested; `error_type` is one of `ingestion.records.ERROR_TYPES`.
    The message is safe to store and show (no credential, no document text)."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.message = message


class ItemGone(Exception):
    """The platform no longer has the item (deleted since discovery): it leaves the index."""


class RunFailed(Exception):
    """The run as a whole cannot go on (no usable credential, the platform refuses the app, a
    discovery read failed); the message becomes the run's `error`."""
