"""Ingestion services: failed-file records, sync configurations and runs, retry, source deletion."""
