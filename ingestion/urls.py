from django.urls import path

from ingestion.apis.failed_files import FailedFilesListApi
from ingestion.apis.sitelib import (
    SitelibDeleteApi,
    SitelibIngestApi,
    SitelibSourcesApi,
    SitelibStatusApi,
    SitelibUploadApi,
)

urlpatterns = [
    path("cloudstore/failed-files", FailedFilesListApi.as_view(), name="cloudstore-failed-files"),
    path("sitelib/upload", SitelibUploadApi.as_view(), name="sitelib-upload"),
    path("sitelib/ingest", SitelibIngestApi.as_view(), name="sitelib-ingest"),
    path("sitelib/status", SitelibStatusApi.as_view(), name="sitelib-status"),
    path("sitelib/delete", SitelibDeleteApi.as_view(), name="sitelib-delete"),
    path("sitelib/sources", SitelibSourcesApi.as_view(), name="sitelib-sources"),
]
