from django.urls import path

from ingestion.apis import FailedFilesListApi

urlpatterns = [
    path("failed-files", FailedFilesListApi.as_view(), name="cloudstore-failed-files"),
]
