"""Who may use the tool hub's endpoints (DESIGN section 3), beside the presets in core.access."""

from __future__ import annotations

from core.access import APPROVE, TOOLS_READ, Access, ReadWrite

# Connections: looked at by integration viewers, changed by integration admins; machines need the
# tools:read scope to look and vault:write to change one (a connection hands out a vault credential).
CONNECTIONS_READ = Access("integration_viewer", "tools:read")
CONNECTIONS_WRITE = Access("integration_admin", "vault:write")
CONNECTIONS = ReadWrite(CONNECTIONS_READ, CONNECTIONS_WRITE)
# Approvals: approvers see the tenant's queue and decide; a machine with tools:execute sees the
# approvals of its own calls (to follow them), and never decides.
APPROVALS_READ = Access("approver", "tools:execute")
APPROVALS_DECIDE = APPROVE
TOOLS_LIST = TOOLS_READ
