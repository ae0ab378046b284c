"""/v2 ingestion endpoints: failed-file records and the sitelib sync endpoints."""
