"""`{% console_dashboard %}`: the dashboard's panels on the console's index page
(templates/admin/index.html), for the signed-in user (ops.dashboard)."""

from django import template

from ops.dashboard import dashboard

register = template.Library()


@register.inclusion_tag("admin/ops/dashboard.html", takes_context=True)
def console_dashboard(context) -> dict:
    request = context["request"]
    return {"request": request, **dashboard(request)}
