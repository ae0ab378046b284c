from django.urls import path

from ingestion.apis import configurations, itsm, sitelib, wikispace
from ingestion.apis.failed_files import FailedFilesListApi
from ingestion.apis.retry import RetryFailedApi

urlpatterns = [
    path("cloudstore/failed-files", FailedFilesListApi.as_view(), name="cloudstore-failed-files"),
    path("cloudstore/retry-failed", RetryFailedApi.as_view(), name="cloudstore-retry-failed"),
    path("sitelib/upload", sitelib.SitelibUploadApi.as_view(), name="sitelib-upload"),
    path("sitelib/ingest", sitelib.SitelibIngestApi.as_view(), name="sitelib-ingest"),
    path("sitelib/status", sitelib.SitelibStatusApi.as_view(), name="sitelib-status"),
    path("sitelib/delete", sitelib.SitelibDeleteApi.as_view(), name="sitelib-delete"),
    path("sitelib/sources", sitelib.SitelibSourcesApi.as_view(), name="sitelib-sources"),
    path("wikispace/upload", wikispace.WikiUploadApi.as_view(), name="wikispace-upload"),
    path("wikispace/status", wikispace.WikiStatusApi.as_view(), name="wikispace-status"),
    path("wikispace/delete", wikispace.WikiDeleteApi.as_view(), name="wikispace-delete"),
    path("itsmplatform/upload", itsm.ItsmUploadApi.as_view(), name="itsmplatform-upload"),
    path("itsmplatform/kb-upload", itsm.ItsmKbUploadApi.as_view(), name="itsmplatform-kb-upload"),
    path("itsmplatform/kb-status", itsm.ItsmStatusApi.as_view(), name="itsmplatform-kb-status"),
    path("itsmplatform/delete", itsm.ItsmDeleteApi.as_view(), name="itsmplatform-delete"),
    path("itsmplatform/kb-delete", itsm.ItsmKbDeleteApi.as_view(), name="itsmplatform-kb-delete"),
    path(
        "sync-configurations", configurations.SyncConfigurationListApi.as_view(), name="sync-configurations"
    ),
    path(
        "sync-configurations/<str:configuration_id>",
        configurations.SyncConfigurationApi.as_view(),
        name="sync-configuration",
    ),
    path(
        "sync-configurations/<str:configuration_id>/stop",
        configurations.SyncConfigurationStopApi.as_view(),
        name="sync-configuration-stop",
    ),
]
