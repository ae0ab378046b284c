"""Demo data: a few failed files so the failed-files endpoint shows something on a fresh start."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from core.models import Tenant
from core.seeding import seed_hook
from ingestion.selectors import failed_file_list
from ingestion.services.failed_files import failed_file_record

DEMO_FAILURES = [
    (
        "sitelib_attachment",
        "demo-file-001",
        "Quarterly report.pdf",
        "https://demo.example.com/sites/finance/Shared%20Documents/Quarterly%20report.pdf",
        "FILE_TOO_LARGE",
        "File size 72 MB exceeds the 50 MB maximum for ingestion.",
    ),
    (
        "sitelib_article",
        "demo-page-002",
        "Onboarding.aspx",
        "https://demo.example.com/sites/hr/SitePages/Onboarding.aspx",
        "PARSE_ERROR",
        "The page body could not be parsed.",
    ),
    (
        "wikispace_article",
        "demo-wiki-003",
        "Runbook: VPN",
        "https://demo.example.com/wiki/spaces/OPS/pages/3",
        "ACCESS_DENIED",
        "The integration user may not read this page.",
    ),
    (
        "itdocs_attachment",
        "demo-scan-004",
        "rack-diagram.png",
        "https://demo.example.com/itdocs/files/4",
        "OCR_FAILED",
        "No text could be recognised in the image.",
    ),
]


@seed_hook
def seed_failed_files(tenant: Tenant) -> None:
    # Only on a tenant without records, so running seed_demo again does not count "repeat failures".
    if failed_file_list(tenant=tenant, platform_type="sitelib", limit=1).total:
        return
    now = timezone.now()
    for hours_ago, (content_type, file_id, name, url, error_type, message) in enumerate(DEMO_FAILURES, 1):
        failed_file_record(
            tenant=tenant,
            platform_domain=tenant.domain or "demo.local",
            content_type=content_type,
            file_id=file_id,
            file_name=name,
            source_url=url,
            error_type=error_type,
            error_message=message,
            failed_at=now - timedelta(hours=hours_ago),
        )
