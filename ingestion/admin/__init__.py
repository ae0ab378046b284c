"""The operators' pages of ingestion (the console, `/admin/ingestion/`): sync configurations with
their latest run, "Sync now" and "Stop sync"; runs with their counters and failed items, "Stop
run"; failed files with "Retry". Tenant admins see and act on their own tenants' rows; every
action goes through the service the API uses, audited."""

from ingestion.admin import configurations, failed_files, runs  # noqa: F401  (register the pages)
