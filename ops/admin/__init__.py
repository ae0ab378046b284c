"""The operators' console site (`/admin/`): its titles, its first page (the dashboard,
ops.dashboard), the audit browser (`ops.admin.audit`), job runs and usage reports
(`ops.admin.reports`). Every app registers its own pages in its `admin` module."""

from django.contrib import admin
from django.contrib.auth.models import Group

from ops.admin import audit, reports  # noqa: F401 (they register their pages)

# Roles come from memberships (core.console); Django's groups are not used, so not shown.
admin.site.unregister(Group)
admin.site.site_header = "Integration platform console"
admin.site.site_title = "Console"
admin.site.index_title = "Operators' console"
admin.site.site_url = "/api/docs/"  # "View site": the API this console runs
