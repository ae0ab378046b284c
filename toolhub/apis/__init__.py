"""Thin views of the tool interface (the tool envelope family: /tools, /connections, /approvals)."""
