"""A headless Chromium for console tests: Debian's /usr/bin/chromium driven by Playwright for Python
(no browser download). Tests that use `browser` are skipped where either is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings

CHROMIUM = Path("/usr/bin/chromium")
# Where console tests write their screenshots (git-ignored; docs/operations.md shows committed copies).
SCREENSHOTS = Path(settings.VAR_DIR) / "screenshots"

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs /usr/bin/chromium (Debian package chromium; CI installs it)"
)


@pytest.fixture
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="needs Playwright for Python (requirements-dev)"
    )
    # Playwright's sync API runs an event loop in this thread; Django refuses ORM calls from a thread
    # with a running loop unless told that this is deliberate (the test's own ORM calls are synchronous).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield chromium
        finally:
            chromium.close()
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def console_login(browser, live_server, username: str, password: str, next_path: str = "/admin/", width=1400):
    """A new page signed in to the console as `username`, showing `next_path`."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{live_server.url}/admin/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_load_state()
    return page


def screenshot(page, name: str) -> Path:
    """Save the whole page as var/screenshots/<name>.png and return the path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
