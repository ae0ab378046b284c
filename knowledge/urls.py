from django.urls import path

from knowledge import apis

urlpatterns = [
    path("sitelib/listing", apis.SitelibListingApi.as_view(), name="sitelib-listing"),
    path("wikispace/space-listing", apis.WikiSpaceListingApi.as_view(), name="wikispace-space-listing"),
    path("itsmplatform/kb-listing", apis.ItsmKbListingApi.as_view(), name="itsmplatform-kb-listing"),
]
