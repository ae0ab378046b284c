"""POST /v2/knowledge/search (DESIGN sections 15 and 20): the tenant's knowledge base, searched by
meaning, by words, or both."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from core.access import KNOWLEDGE_VIEW
from core.api.envelopes import v2_response
from core.api.errors import ServiceUnavailable
from core.api.fields import StrictCharField, StrictChoiceField, StrictIntegerField
from core.api.schema import V2DetailSerializer, v2_envelope
from core.api.validation import validated
from core.api.views import TenantAPIView
from identity.sources import source_identities
from knowledge.apis import VectordbConfigSerializer
from knowledge.embeddings import EmbeddingFailed
from knowledge.models import PLATFORM_TYPES
from knowledge.selectors import documents_search, vectordb_tenant_check
from knowledge.vectors.store import HYBRID, SEARCH_MODES

MAX_TOP_K = 50
MAX_QUERY = 2000


class KnowledgeSearchInput(serializers.Serializer):
    query = StrictCharField(max_length=MAX_QUERY, help_text="What to look for, in plain words.")
    vectordb_config = VectordbConfigSerializer()
    top_k = StrictIntegerField(min_value=1, max_value=MAX_TOP_K, required=False, default=5)
    platform_types = serializers.ListField(
        child=StrictChoiceField(choices=PLATFORM_TYPES),
        required=False,
        allow_empty=False,
        min_length=1,
        max_length=len(PLATFORM_TYPES),
        help_text="Only these platforms' documents (default: every platform).",
    )
    audience = serializers.ListField(
        child=StrictCharField(max_length=255),
        required=False,
        max_length=100,
        help_text="Narrows the results to documents meant for these audiences (groups) and for everyone. "
        'It never widens what the caller may read at the source (docs/knowledge.md, "Who sees what"). '
        "Default: no narrowing.",
    )

    mode = StrictChoiceField(
        choices=SEARCH_MODES,
        required=False,
        default=HYBRID,
        help_text="hybrid (default): meaning and words, identifiers such as ticket numbers and error "
        "codes first; semantic: meaning only; keyword: words only (the query is not embedded).",
    )

    class Meta:
        ref_name = "KnowledgeSearchInput"


class KnowledgeSearchResult(serializers.Serializer):
    document_id = serializers.CharField(help_text="doc-<uuid>")
    title = serializers.CharField()
    source_url = serializers.CharField()
    platform_type = serializers.CharField()
    content_type = serializers.CharField()
    chunk = serializers.CharField(help_text="The passage that matched.")
    score = serializers.FloatField(
        help_text="Higher is better, best first: semantic, the cosine similarity (-1..1); keyword, the "
        "weight of the query's terms the passage holds; hybrid, the fusion's score (1 or more for a "
        "passage that holds the query's identifiers)."
    )

    class Meta:
        ref_name = "KnowledgeSearchResult"


class KnowledgeSearchData(serializers.Serializer):
    results = KnowledgeSearchResult(many=True)
    model = serializers.CharField(help_text="The embedding model whose chunks were searched.")
    mode = serializers.ChoiceField(choices=SEARCH_MODES, help_text="How the chunks were ranked.")

    class Meta:
        ref_name = "KnowledgeSearchData"


class KnowledgeSearchApi(TenantAPIView):
    access = KNOWLEDGE_VIEW

    @extend_schema(
        operation_id="knowledge_search",
        summary="Search the tenant's knowledge base by meaning and words",
        request=KnowledgeSearchInput,
        responses={
            200: v2_envelope("KnowledgeSearchEnvelope", KnowledgeSearchData()),
            503: OpenApiResponse(V2DetailSerializer, description="The query could not be embedded."),
        },
        tags=["knowledge"],
        description="The passages of ingested documents that best answer `query`, best first: by meaning "
        "and words (`mode` hybrid, the default), by meaning only (semantic) or by words only (keyword). "
        "Only documents the caller may read at their source are searched: a person's (or an agent "
        "acting for one) by their e-mail and groups, a key's or client's those shared with everyone "
        "unless it holds `knowledge:all`.",
    )
    def post(self, request):
        data = validated(KnowledgeSearchInput, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        try:
            found = documents_search(
                tenant=self.tenant,
                query=data["query"],
                top_k=data["top_k"],
                identities=source_identities(self.principal, self.tenant),
                platform_types=data.get("platform_types"),
                audience=data.get("audience"),
                mode=data["mode"],
            )
        except EmbeddingFailed as exc:
            raise ServiceUnavailable(f"The query could not be embedded: {exc}") from exc
        return v2_response(found)
