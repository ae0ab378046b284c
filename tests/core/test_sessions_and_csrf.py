"""Sessions, CSRF, the signed-in user and messages serve the admin's pages; the JSON API sets no
cookie and does not vary on one."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.helpers import assert_ok

pytestmark = pytest.mark.django_db


def test_an_api_answer_sets_no_cookie_and_does_not_vary_on_one(client_for, owner, tenant):
    response = client_for(owner, tenant).get("/api/v1/credentials")
    assert_ok(response)
    assert "Cookie" not in response.get("Vary", "") and not response.cookies


def test_the_admin_keeps_its_csrf_check_and_its_session(root):
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/admin/login/")
    assert page.status_code == 200 and "csrftoken" in page.cookies
    refused = browser.post("/admin/login/", {"username": "root", "password": "x"})
    assert refused.status_code == 403  # no CSRF token: Django's own refusal

    browser.force_login(root)
    assert browser.get("/admin/").status_code == 200
    assert hasattr(browser.get("/admin/").wsgi_request, "session")
