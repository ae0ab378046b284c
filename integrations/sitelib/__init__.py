"""The document-site platform (`sitelib`): an app-only token from the identity platform through msal
(`auth`), then the Graph-style API: sites, sub-sites, drives and folders for the listing (`client`),
a drive's files, change feed and content for ingestion (`files`), reads of many objects in JSON
batches (`batch`)."""
