"""How ingestion's rows read in the console: statuses as a word and a symbol, people by name,
JSON as labelled lists."""

from __future__ import annotations

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.charts import BAD, GOOD, INFO, QUIET, WARN
from ingestion.models import SyncRun

# status -> (symbol, what a person calls it, colour); the word carries the meaning, not the colour.
RUN_STATUS = {
    SyncRun.Status.QUEUED: ("…", "Queued", QUIET),
    SyncRun.Status.RUNNING: ("▶", "Running", INFO),
    SyncRun.Status.SUCCESS: ("✓", "Succeeded", GOOD),
    SyncRun.Status.PARTIAL: ("◐", "Partly failed", WARN),
    SyncRun.Status.FAILED: ("✗", "Failed", BAD),
    SyncRun.Status.STOPPED: ("■", "Stopped", QUIET),
}


def run_status(status: str | None) -> SafeString | str:
    if not status:
        return "Never run"
    symbol, label, colour = RUN_STATUS.get(status, ("?", status, QUIET))
    return format_html('<span style="color:{};font-weight:bold">{} {}</span>', colour, symbol, label)


def actor_text(actor: dict | None) -> str:
    """ "Ann Smith <ann@x.test> (user)" for an audit actor; "" for nobody."""
    if not actor:
        return ""
    name = actor.get("name") or actor.get("id") or "unknown"
    email = f" <{actor['email']}>" if actor.get("email") else ""
    return f"{name}{email} ({actor.get('type', 'unknown')})"


def labelled(values: dict | None, empty: str = "—") -> SafeString | str:
    """A JSON object as a list of "key: value" lines, lists joined with commas."""
    if not values:
        return empty
    items = [
        (key, ", ".join(map(str, value)) if isinstance(value, list) else value)
        for key, value in values.items()
    ]
    return format_html(
        "<ul style='margin:0;padding-left:1em'>{}</ul>", format_html_join("", "<li><b>{}</b>: {}</li>", items)
    )
