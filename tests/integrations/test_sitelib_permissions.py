"""What the document-site platform's permission shapes admit (integrations/sitelib/permissions.py),
for the shapes the fake platform's own sharing does not produce: the platform's claims in a site
user's login name, links that grant nothing new, invitations nobody redeemed, and identities that
name nobody one could match."""

from __future__ import annotations

import pytest

from integrations.sitelib.permissions import item_readers

GROUP_ID = "0b7a9c1e-5d3f-4a2b-8c6d-9e1f2a3b4c5d"
TENANT_ID = "4f6a1c2e-8d3b-4e7a-9c1f-2b5d7e9a0c13"


def site_user(login: str, **extra) -> dict:
    return {"grantedToV2": {"siteUser": {"id": "12", "displayName": "someone", "loginName": login, **extra}}}


@pytest.mark.parametrize(
    ("permission", "readers"),
    [
        pytest.param(
            site_user(f"c:0o.c|federateddirectoryclaimprovider|{GROUP_ID.upper()}_o"),
            (f"group:sitelib:{GROUP_ID}",),
            id="a connected group's owners are the group's id",
        ),
        pytest.param(
            site_user(f"c:0t.c|tenant|{GROUP_ID}"), (f"group:sitelib:{GROUP_ID}",), id="a security group"
        ),
        pytest.param(
            site_user(f"c:0-.f|rolemanager|spo-grid-all-users/{TENANT_ID}"),
            ("everyone",),
            id="everyone except external users",
        ),
        pytest.param(site_user("c:0(.s|true"), ("everyone",), id="everyone"),
        pytest.param(
            site_user("i:0#.f|membership|Dana@Contoso.onmicrosoft.com"),
            ("user:dana@contoso.onmicrosoft.com",),
            id="a site user known by login name only is their UPN",
        ),
        pytest.param(
            {"grantedToV2": {"user": {"id": "5d33dd65", "displayName": "John Doe"}}},
            (),
            id="a user named by id only admits nobody",
        ),
        pytest.param(
            {
                "grantedToV2": {
                    "siteGroup": {"id": "3", "displayName": "Team Visitors", "loginName": "Team Visitors"}
                }
            },
            (),
            id="a site group admits nobody: the API does not say who is in it",
        ),
        pytest.param(
            {"grantedToV2": {"application": {"id": "1234", "displayName": "Contoso Time Manager"}}},
            (),
            id="an application is no reader",
        ),
        pytest.param(
            {"roles": ["write"], "invitation": {"email": "JD@gmail.com", "signInRequired": True}},
            ("user:jd@gmail.com",),
            id="an invitation nobody redeemed yet admits the invited address",
        ),
        pytest.param(
            {"roles": ["read"], "link": {"scope": "existingAccess", "type": "view"}},
            (),
            id="a link for those who already have access admits nobody new",
        ),
        pytest.param(
            {
                "roles": ["write"],
                "link": {"type": "edit"},
                "grantedToIdentitiesV2": [{"user": {"id": "1", "email": "misty@contoso.test"}}],
            },
            ("user:misty@contoso.test",),
            id="a link without a scope admits only whom it names",
        ),
    ],
)
def test_what_a_permission_admits(permission, readers):
    assert item_readers([permission]) == readers


def test_readers_are_sorted_and_named_once():
    permissions = [
        site_user("i:0#.f|membership|b@contoso.test", email="B@contoso.test"),
        site_user("i:0#.f|membership|a@contoso.test"),
        {"link": {"scope": "organization"}},
        {"link": {"scope": "anonymous"}},
    ]
    assert item_readers(permissions) == ("everyone", "user:a@contoso.test", "user:b@contoso.test")
