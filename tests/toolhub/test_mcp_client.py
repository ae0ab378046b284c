"""The official MCP client (the `mcp` package's Streamable HTTP transport, ClientSession and Client)
against this service over real HTTP: it connects, lists the tools and calls a read tool; and, with
its OAuth provider (mcp.client.auth) and nothing but the URL, it discovers the authorization server,
registers itself, sends a person through sign-in and consent with PKCE and a loopback redirect,
gets a token and uses it."""

from __future__ import annotations

import re
from hashlib import sha256
from html import unescape

import anyio
import httpx2
import pytest
import requests
from mcp import Client, ClientSession, types
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from mcp.shared.exceptions import MCPError
from oauth2_provider.models import get_access_token_model

from core.audit import system_actor
from core.models import AuditEntry
from identity.models import OAuthClient
from tests import factories
from tests.fakes.server import FakeVendor, Received, Reply, route
from toolhub.models import ExecutionRecord
from toolhub.services.connections import connection_create

ORG_LIST = "itdocs.organization.list"
SEARCH = "knowledge.documents.search"


async def _session_run(url: str, headers: dict, work):
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        initialized = await session.initialize()
        return initialized, await work(session)


def run_session(url: str, headers: dict, work):
    return anyio.run(_session_run, url, headers, work)


@pytest.mark.django_db(transaction=True)
def test_the_official_client_lists_and_calls_tools(live_server, exec_key, itdocs_connection, itdocs_fake):
    async def work(session: ClientSession):
        listed = await session.list_tools()
        called = await session.call_tool(ORG_LIST, {"name": "Acme Corp"})
        try:
            await session.call_tool("no.such.tool", {})
        except MCPError as exc:
            return listed, called, exc
        return listed, called, None

    initialized, (listed, called, missing) = run_session(
        live_server.url + "/mcp", {"X-API-Key": exec_key}, work
    )
    assert initialized.protocol_version == "2025-11-25"
    assert initialized.server_info.name == "integration-platform"
    tools = {tool.name: tool for tool in listed.tools}
    assert tools[ORG_LIST].annotations.read_only_hint is True
    assert tools[ORG_LIST].input_schema["type"] == "object"
    assert called.is_error is False
    assert [org["name"] for org in called.structured_content["organizations"]] == ["Acme Corp"]
    assert isinstance(called.content[0], types.TextContent)
    assert missing.code == -32602 and "no.such.tool" in missing.message
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1
    assert ExecutionRecord.objects.filter(tool_key=ORG_LIST, outcome="success").count() == 1
    assert AuditEntry.objects.get(action="TOOL_EXECUTED").details["channel"] == "mcp"


# ---- an agent that knows nothing but the URL (MCP authorization)


class MemoryStorage:
    """The agent's token storage (mcp.client.auth.TokenStorage), in memory."""

    def __init__(self) -> None:
        self.tokens, self.client_info = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


class LoopbackCallback(FakeVendor):
    """Where the agent listens for the person's browser to come back (RFC 8252 loopback)."""

    @route("GET", "/callback")
    def callback(self, request: Received) -> Reply:
        return Reply(200, "You may close this window.")

    def result(self) -> AuthorizationCodeResult:
        query = {name: values[0] for name, values in self.received[-1].query.items()}
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def sign_in_and_allow(authorization_url: str, username: str) -> None:
    """The person: opens the address the agent shows, signs in, and allows on the consent page."""
    browser = requests.Session()
    page = browser.get(authorization_url, timeout=30)
    page = browser.post(page.url, data=_hidden_fields(page.text) | {"username": username,
                        "password": factories.PASSWORD}, timeout=30)  # fmt: skip
    assert "authorizationForm" in page.text, page.text[:2000]
    done = browser.post(page.url, data=_hidden_fields(page.text) | {"allow": "Authorize"}, timeout=30)
    assert done.status_code == 200 and done.text == "You may close this window.", done.text[:500]


def _hidden_fields(html: str) -> dict:
    return {name: unescape(value) for name, value in re.findall(r'name="([a-z_]+)" value="([^"]*)"', html)}


@pytest.mark.django_db(transaction=True)
def test_an_agent_signs_in_with_nothing_but_the_url(live_server, tenant):
    factories.make_user(tenant, ["integration_admin"], username="dana", email="dana@acme.test")
    document = factories.make_searchable_document(
        tenant, ["Start the VPN client to reach the intranet from home."], title="Working from home"
    )
    connection_create(tenant=tenant, actor=system_actor("tests"), name="kb", domain="knowledge",
                      connector="knowledge")  # fmt: skip
    url = live_server.url + "/mcp"
    with LoopbackCallback() as loopback:

        async def person(authorization_url: str) -> None:
            await anyio.to_thread.run_sync(sign_in_and_allow, authorization_url, "dana")

        async def came_back() -> AuthorizationCodeResult:
            return loopback.result()

        storage = MemoryStorage()
        agent = OAuthClientProvider(
            server_url=url,
            client_metadata=OAuthClientMetadata(
                client_name="Test agent",
                redirect_uris=[f"{loopback.url}/callback"],
                grant_types=["authorization_code", "refresh_token"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=person,
            callback_handler=came_back,
        )

        async def session():
            async with (
                httpx2.AsyncClient(auth=agent, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                tools = await client.list_tools()
                listed = await client.list_resources()
                read = await client.read_resource(listed.resources[0].uri)
                found = await client.call_tool(SEARCH, {"query": "connect from home", "top_k": 1})
                return client.protocol_version, tools, listed, read, found

        version, tools, listed, read, found = anyio.run(session)

    assert version == "2026-07-28"
    assert SEARCH in {tool.name for tool in tools.tools}
    assert [str(r.uri) for r in listed.resources] == [f"kb://documents/{document.public_id}"]
    assert read.contents[0].text.startswith("Title: Working from home")
    assert found.is_error is False and found.structured_content["results"][0]["title"] == "Working from home"
    registered = OAuthClient.objects.get(name="Test agent")
    assert registered.tenant is None and registered.registration_source == "dcr"
    executed = AuditEntry.objects.get(action="TOOL_EXECUTED")
    assert executed.tenant_id == tenant.id and executed.actor["user"]["username"] == "dana"
    assert executed.actor["type"] == "oauth_client" and executed.actor["id"] == str(registered.id)
    issued = AuditEntry.objects.get(action="OAUTH_TOKEN_ISSUED")
    assert issued.tenant_id == tenant.id and issued.details["user"]["username"] == "dana"
    token = storage.tokens.access_token
    assert get_access_token_model().objects.get(
        token_checksum=sha256(token.encode()).hexdigest()
    ).resource == [url]
    rest = requests.get(f"{live_server.url}/api/v1/tools", headers={"Authorization": f"Bearer {token}",
                        "x-tenantid": str(tenant.id)}, timeout=10)  # fmt: skip
    assert rest.status_code == 401  # bound to /mcp (RFC 8707)
