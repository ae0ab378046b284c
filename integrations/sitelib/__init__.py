"""The document-site platform (`sitelib`): an app-only token from the identity platform through msal
(`auth`), then the Graph-style API: sites, sub-sites, drives and folders for the listing (`client`),
a drive's files, change feed and content for ingestion (`files`), reads of many objects in JSON
batches (`batch`)."""

from integrations.sitelib.client import SitelibClient
from integrations.sitelib.files import item_within
from integrations.sitelib.models import (
    PLATFORM,
    Drive,
    DriveItem,
    Folder,
    Site,
    SitelibCredentials,
    cloud_tid_valid,
    drive_named,
    item_too_large,
    thumbprint_valid,
)

__all__ = [
    "PLATFORM",
    "Drive",
    "DriveItem",
    "Folder",
    "Site",
    "SitelibClient",
    "SitelibCredentials",
    "cloud_tid_valid",
    "drive_named",
    "item_too_large",
    "item_within",
    "thumbprint_valid",
]
