from django.urls import path

from knowledge.apis import listings, search, source_rules

urlpatterns = [
    path("sitelib/listing", listings.SitelibListingApi.as_view(), name="sitelib-listing"),
    path("wikispace/space-listing", listings.WikiSpaceListingApi.as_view(), name="wikispace-space-listing"),
    path("itsmplatform/kb-listing", listings.ItsmKbListingApi.as_view(), name="itsmplatform-kb-listing"),
    path("knowledge/search", search.KnowledgeSearchApi.as_view(), name="knowledge-search"),
    path("knowledge/source-rules", source_rules.SourceRulesApi.as_view(), name="knowledge-source-rules"),
    path(
        "knowledge/source-rules/<str:rule_id>",
        source_rules.SourceRuleApi.as_view(),
        name="knowledge-source-rule",
    ),
]
