from django.urls import path

from toolhub.apis import approvals, connections, tools

urlpatterns = [
    path("tools", tools.ToolListApi.as_view(), name="tools-list"),
    path("tools/<str:tool_key>", tools.ToolDetailApi.as_view(), name="tools-detail"),
    path("tools/<str:tool_key>/execute", tools.ToolExecuteApi.as_view(), name="tools-execute"),
    path("connections", connections.ConnectionListApi.as_view(), name="connections-list"),
    path(
        "connections/<str:connection_id>",
        connections.ConnectionDetailApi.as_view(),
        name="connections-detail",
    ),
    path(
        "connections/<str:connection_id>/test",
        connections.ConnectionTestApi.as_view(),
        name="connections-test",
    ),
    path("approvals", approvals.ApprovalListApi.as_view(), name="approvals-list"),
    path("approvals/<str:approval_id>", approvals.ApprovalDetailApi.as_view(), name="approvals-detail"),
    path(
        "approvals/<str:approval_id>/approve",
        approvals.ApprovalApproveApi.as_view(),
        name="approvals-approve",
    ),
    path(
        "approvals/<str:approval_id>/reject", approvals.ApprovalRejectApi.as_view(), name="approvals-reject"
    ),
]
