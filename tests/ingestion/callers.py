"""The callers of the end-to-end permissions tests (DESIGN section 19): an MCP agent acting for a
person, and whether it finds a document the way a person's agent would look for it."""

from __future__ import annotations

from tests.identity.test_oauth_provider import authorize, register
from tests.identity.test_oauth_provider import exchange as code_exchange
from tests.toolhub.test_mcp import ACCEPT, call_tool, rpc


def agent_for(client_for, tenant, user, as_owner):
    """An MCP client whose OAuth token acts for `user` (the authorization-code flow)."""
    app = register(as_owner, scopes=["knowledge:read", "tools:read", "tools:execute"])
    code = authorize(user, app["clientId"], scope="knowledge:read tools:read tools:execute")["code"][0]
    token = code_exchange(app["clientId"], code).json()["access_token"]
    return client_for(token, tenant, HTTP_ACCEPT=ACCEPT)


def agent_sees(agent, words: str, document) -> tuple[bool, bool]:
    """Whether the agent's search tool puts `document` first for `words`, and whether the agent
    can read it as a resource."""
    results = call_tool(agent, "knowledge.documents.search", {"query": words, "top_k": 1})
    searched = results["structuredContent"]["results"]
    read = rpc(agent, "resources/read", {"uri": f"kb://documents/doc-{document.id}"})
    return bool(searched) and searched[0]["title"] == document.title, "error" not in read.json()
