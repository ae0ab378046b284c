from rest_framework.routers import SimpleRouter

from toolhub.apis.approvals import ApprovalViewSet
from toolhub.apis.connections import ConnectionViewSet
from toolhub.apis.tools import ToolViewSet

router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("tools", ToolViewSet, basename="tools")
router.register("connections", ConnectionViewSet, basename="connections")
router.register("approvals", ApprovalViewSet, basename="approvals")

urlpatterns = router.urls
