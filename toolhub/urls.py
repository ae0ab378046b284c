from django.urls import path
from rest_framework.routers import SimpleRouter

from toolhub.apis.approvals import ApprovalViewSet
from toolhub.apis.connections import ConnectionViewSet
from toolhub.apis.mcp import McpApi, McpResourceMetadataApi
from toolhub.apis.tools import ToolViewSet

router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("api/v1/tools", ToolViewSet, basename="tools")
router.register("api/v1/connections", ConnectionViewSet, basename="connections")
router.register("api/v1/approvals", ApprovalViewSet, basename="approvals")

urlpatterns = [
    *router.urls,
    path("mcp", McpApi.as_view(), name="mcp"),
    path(
        ".well-known/oauth-protected-resource/mcp",
        McpResourceMetadataApi.as_view(),
        name="mcp-resource-metadata",
    ),
]
