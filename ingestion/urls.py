from django.urls import path

from ingestion.apis import configurations, itsm, sitelib, wikispace
from ingestion.apis.failed_files import FailedFilesListApi
from ingestion.apis.retry import RetryFailedApi

urlpatterns = [
    path("v2/cloudstore/failed-files", FailedFilesListApi.as_view(), name="cloudstore-failed-files"),
    path("v2/cloudstore/retry-failed", RetryFailedApi.as_view(), name="cloudstore-retry-failed"),
    path("v2/sitelib/upload", sitelib.SitelibUploadApi.as_view(), name="sitelib-upload"),
    path("v2/sitelib/ingest", sitelib.SitelibIngestApi.as_view(), name="sitelib-ingest"),
    path("v2/sitelib/status", sitelib.SitelibStatusApi.as_view(), name="sitelib-status"),
    path("v2/sitelib/delete", sitelib.SitelibDeleteApi.as_view(), name="sitelib-delete"),
    path("v2/sitelib/sources", sitelib.SitelibSourcesApi.as_view(), name="sitelib-sources"),
    path("v2/wikispace/upload", wikispace.WikiUploadApi.as_view(), name="wikispace-upload"),
    path("v2/wikispace/ingest", wikispace.WikiIngestApi.as_view(), name="wikispace-ingest"),
    path("v2/wikispace/status", wikispace.WikiStatusApi.as_view(), name="wikispace-status"),
    path("v2/wikispace/delete", wikispace.WikiDeleteApi.as_view(), name="wikispace-delete"),
    path("v2/itsmplatform/upload", itsm.ItsmUploadApi.as_view(), name="itsmplatform-upload"),
    path("v2/itsmplatform/kb-upload", itsm.ItsmKbUploadApi.as_view(), name="itsmplatform-kb-upload"),
    path("v2/itsmplatform/ingest", itsm.ItsmIngestApi.as_view(), name="itsmplatform-ingest"),
    path("v2/itsmplatform/kb-status", itsm.ItsmStatusApi.as_view(), name="itsmplatform-kb-status"),
    path("v2/itsmplatform/delete", itsm.ItsmDeleteApi.as_view(), name="itsmplatform-delete"),
    path("v2/itsmplatform/kb-delete", itsm.ItsmKbDeleteApi.as_view(), name="itsmplatform-kb-delete"),
    path(
        "v2/sync-configurations",
        configurations.SyncConfigurationListApi.as_view(),
        name="sync-configurations",
    ),
    path(
        "v2/sync-configurations/<str:configuration_id>",
        configurations.SyncConfigurationApi.as_view(),
        name="sync-configuration",
    ),
    path(
        "v2/sync-configurations/<str:configuration_id>/stop",
        configurations.SyncConfigurationStopApi.as_view(),
        name="sync-configuration-stop",
    ),
    path(
        "v2/sync-configurations/<str:configuration_id>/permissions-sync",
        configurations.SyncConfigurationPermissionsApi.as_view(),
        name="sync-configuration-permissions-sync",
    ),
]
