"""The operators' credential pages: searchable and filterable, never showing or editing a secret."""

import pytest

from tests import factories
from tests.helpers import assert_ok
from tests.vault.conftest import URL, store_body
from vault.models import Credential

pytestmark = pytest.mark.django_db
SECRET = "admin-page-secret-123"


@pytest.fixture
def staff(client):
    client.force_login(factories.make_super_admin(username="ops"))
    return client


@pytest.fixture
def two(admin_api):
    assert_ok(admin_api.post(URL, store_body(accessToken=SECRET, secrets={"pw": SECRET}), format="json"))
    assert_ok(
        admin_api.post(
            URL, store_body(integrationId="wiki-1", authType="basic_auth", accessToken="dTpw"), format="json"
        )
    )


def test_the_list_searches_and_filters_by_integration_auth_type_status_and_expiry(staff, two):
    page = staff.get("/admin/vault/credential/?q=wiki").content.decode()
    assert "wiki-1" in page and "itsm-prod-001" not in page
    page = staff.get("/admin/vault/credential/?auth_type__exact=api_key").content.decode()
    assert "itsm-prod-001" in page and "wiki-1" not in page
    for query in ("status__exact=active", "is_expired__exact=0", "expires_at__isnull=True"):
        assert staff.get(f"/admin/vault/credential/?{query}").status_code == 200


def test_the_change_page_shows_no_secret_and_nothing_can_be_edited(staff, two):
    credential = Credential.objects.get(integration_id="itsm-prod-001")
    response = staff.get(f"/admin/vault/credential/{credential.id}/change/")
    page = response.content.decode()
    assert response.status_code == 200 and "itsm-prod-001" in page
    assert SECRET not in page and credential.access_token.stored not in page
    assert 'name="access_token"' not in page and "<textarea" not in page
    assert staff.post(f"/admin/vault/credential/{credential.id}/change/", {"name": "x"}).status_code == 403
    assert staff.get("/admin/vault/credential/add/").status_code == 403


def test_the_data_key_pages_do_not_show_wrapped_keys(staff, two, tenant):
    from vault.models import DataKey

    key = DataKey.objects.get(tenant=tenant)
    page = staff.get(f"/admin/vault/datakey/{key.id}/change/").content.decode()
    assert key.wrapped not in page
