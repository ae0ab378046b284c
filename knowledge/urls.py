from django.urls import path

from knowledge.apis import listings, search, source_rules

urlpatterns = [
    path("v2/sitelib/listing", listings.SitelibListingApi.as_view(), name="sitelib-listing"),
    path(
        "v2/wikispace/space-listing", listings.WikiSpaceListingApi.as_view(), name="wikispace-space-listing"
    ),
    path("v2/itsmplatform/kb-listing", listings.ItsmKbListingApi.as_view(), name="itsmplatform-kb-listing"),
    path("v2/knowledge/search", search.KnowledgeSearchApi.as_view(), name="knowledge-search"),
    path("v2/knowledge/source-rules", source_rules.SourceRulesApi.as_view(), name="knowledge-source-rules"),
    path(
        "v2/knowledge/source-rules/<str:rule_id>",
        source_rules.SourceRuleApi.as_view(),
        name="knowledge-source-rule",
    ),
]
