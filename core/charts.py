"""Charts for the console, drawn on the server as inline SVG: no script, no CDN, readable offline and
in a screenshot. Every number is also in the markup as text (a label or a <title> tooltip), so a
screen reader and a test read what a person sees."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

# Colours with a meaning, the same on every panel; the labels carry it too.
GOOD, BAD, WARN, INFO, QUIET, OTHER = "#2e7d32", "#c62828", "#b26a00", "#1565c0", "#78909c", "#6a1b9a"

_WIDTH = 400  # drawn at this many pixels: a panel is never narrower, so labels never shrink


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    color: str = INFO
    link: str = ""
    text: str = ""  # shown after the bar instead of the value


def bar_chart(bars: list[Bar], *, maximum: float | None = None, title: str = "") -> SafeString:
    """Horizontal bars, one a row, each with its label and value (and link)."""
    if not bars:
        return SafeString()
    top = maximum or max(bar.value for bar in bars) or 1
    label_w, bar_w, row_h = 150, 190, 26
    rows = []
    for i, bar in enumerate(bars):
        y = i * row_h
        width = max(2.0, bar_w * min(bar.value, top) / top) if bar.value else 0
        shape = format_html(
            '<text x="0" y="{}" class="chart-label">{}</text>'
            '<rect x="{}" y="{}" width="{}" height="16" rx="2" fill="{}"><title>{}: {}</title></rect>'
            '<text x="{}" y="{}" class="chart-value">{}</text>',
            y + 17, _clip(bar.label, 20), label_w, y + 4, _f(width), bar.color, bar.label,
            bar.text or _number(bar.value), _f(label_w + width + 6), y + 17, bar.text or _number(bar.value),
        )  # fmt: skip
        rows.append(format_html('<a href="{}">{}</a>', bar.link, shape) if bar.link else shape)
    height = len(bars) * row_h
    return format_html(
        '<svg class="chart" role="img" viewBox="0 0 {} {}" width="100%" aria-label="{}">{}</svg>',
        _WIDTH, height, title, format_html_join("", "{}", ((row,) for row in rows)),
    )  # fmt: skip


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: list[int]


def stacked_columns(
    labels: list[str], series: list[Series], *, title: str = "", every: int = 6
) -> SafeString:
    """Columns of stacked counts (e.g. tool calls per hour by outcome), with a legend and every
    `every`-th label under its column."""
    if not labels:
        return SafeString()
    top = max(sum(s.values[i] for s in series) for i in range(len(labels))) or 1
    left, plot_h, base = 34, 120, 130
    step = (_WIDTH - left) / len(labels)
    parts = [
        format_html('<text x="0" y="12" class="chart-value">{}</text>', _number(top)),
        format_html('<text x="0" y="{}" class="chart-value">0</text>', base),
        format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" class="chart-axis"/>', left, base, _WIDTH, base),
    ]
    for i, label in enumerate(labels):
        y = base
        for s in series:
            value = s.values[i]
            if not value:
                continue
            h = plot_h * value / top
            y -= h
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} {}: {}</title></rect>',
                    _f(left + i * step + 1),
                    _f(y),
                    _f(step - 2),
                    _f(h),
                    s.color,
                    label,
                    s.name,
                    value,
                )
            )
        if i % every == 0:
            x = _f(left + i * step)
            parts.append(
                format_html('<text x="{}" y="{}" class="chart-label">{}</text>', x, base + 14, label)
            )
    parts.append(_legend(series, base + 34))
    return format_html(
        '<svg class="chart" role="img" viewBox="0 0 {} {}" width="100%" aria-label="{}">{}</svg>',
        _WIDTH, base + 44, title, format_html_join("", "{}", ((part,) for part in parts)),
    )  # fmt: skip


def _legend(series: list[Series], y: int) -> SafeString:
    x, items = 0, []
    for s in series:
        total = sum(s.values)
        text = f"{s.name} ({_number(total)})"
        items.append((x, y - 9, s.color, x + 14, y, text))
        x += 22 + 7 * len(text)
    return format_html_join(
        "",
        '<rect x="{}" y="{}" width="10" height="10" fill="{}"/>'
        '<text x="{}" y="{}" class="chart-label">{}</text>',
        items,
    )


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _f(value: float) -> str:
    return f"{value:.1f}"


def _clip(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"
