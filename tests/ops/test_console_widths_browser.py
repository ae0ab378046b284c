"""Every list page of the console fits a 1280-pixel window: the last column stays on screen however
long the values in its rows and filters are, and the dashboard's chart labels are readable."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin

from core.audit import audit_record
from core.models import Role
from tests import factories
from tests.browser import console_login, needs_chromium
from tests.ops.dashboard_data import seed_dashboard

pytestmark = [needs_chromium, pytest.mark.django_db(transaction=True)]
WIDTH = 1280
LONG = "an-uncommonly-long-name-that-nobody-would-type-twice-" * 2


def _long_values(tenant) -> None:
    for n in range(3):
        key, _raw = factories.make_api_key(tenant, name=f"{LONG}{n}")
        audit_record(
            tenant=tenant,
            action="SOMETHING_WITH_A_VERY_LONG_ACTION_NAME",
            category="a-category-with-a-long-name",
            actor={
                "type": "api_key",
                "id": str(key.id),
                "name": f"{LONG}{n}",
                "email": "",
                "ipAddress": None,
            },
            resource={"type": "credential", "id": f"cred-{n}", "name": f"{LONG}resource-{n}"},
            details={"reason": LONG},
        )


def _fits(page) -> dict:
    return page.evaluate(
        """() => {
            const headers = [...document.querySelectorAll('#result_list thead th')];
            const last = headers.length ? headers[headers.length - 1].getBoundingClientRect().right : 0;
            const scroll = document.documentElement.scrollWidth;
            return {scroll: scroll, last: Math.round(last), columns: headers.length};
        }"""
    )


def test_every_list_page_fits_1280_pixels(browser, live_server, tenant, other_tenant):
    seed_dashboard(tenant)
    _long_values(tenant)
    factories.make_tenant(LONG)
    root = factories.make_super_admin(username="root-wide")
    root.set_password(factories.PASSWORD)
    root.save()
    page = console_login(browser, live_server, "root-wide", factories.PASSWORD, width=WIDTH)
    too_wide = []
    for model in (model for model in apps.get_models() if admin.site.is_registered(model)):
        meta = model._meta
        page.goto(f"{live_server.url}/admin/{meta.app_label}/{meta.model_name}/")
        measured = _fits(page)
        if measured["scroll"] > WIDTH or measured["last"] > WIDTH:
            too_wide.append((f"{meta.app_label}.{meta.model_name}", measured))
    assert too_wide == [], too_wide


def test_the_dashboards_chart_labels_are_readable(browser, live_server, tenant):
    seed_dashboard(tenant, key_calls=3)
    factories.make_user(tenant, [Role.TENANT_ADMIN], username="ops-wide", is_staff=True)
    page = console_login(browser, live_server, "ops-wide", factories.PASSWORD, width=WIDTH)
    page.wait_for_selector("#console-dashboard svg.chart")
    # The font size as drawn: the style's size times the scale the SVG is drawn at.
    smallest = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('#console-dashboard svg text')]"
        ".map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"
    )
    assert smallest >= 12, smallest
