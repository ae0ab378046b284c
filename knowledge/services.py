"""Writes of source rules (audited), and the /v2 listings: sitelib sites/drives/folders, wiki
spaces, ITSM knowledge bases.

The listings' credentials arrive in the request body and live only in these calls' local variables
and the vendor client built for them: never stored, logged, audited or echoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api.errors import Conflict, ResourceNotFound, value_error
from core.api.timestamps import iso_ms
from core.audit import audit_record
from core.models import Tenant
from core.outbound import guard_url
from integrations.errors import VendorNotFound
from integrations.itsm import ItsmClient, ItsmCredentials
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.models import Drive, Folder, Site, SitelibCredentials, drive_named
from integrations.wikispace import WikiClient
from knowledge.errors import UpstreamUnavailable, platform_call
from knowledge.models import SourceRule
from knowledge.selectors import SourceRules, site_url_key, source_rule_get, source_rules_get

ALL_FOLDERS = "*"


def source_rule_ensure(
    *, tenant: Tenant, kind: str, target: str, value: str, audiences: list[str] | None = None, note: str = ""
) -> SourceRule:
    """Operators write rules in the Django admin; this is for seeding and scripts (idempotent)."""
    rule, _ = SourceRule.objects.get_or_create(
        tenant=tenant,
        kind=kind,
        target=target,
        value=value,
        defaults={"audiences": audiences or [], "note": note},
    )
    return rule


def source_rule_create(
    *,
    tenant: Tenant,
    kind: str,
    target: str,
    value: str,
    audiences: Sequence[str] = (),
    note: str = "",
    actor: dict,
    request_id: str | None,
) -> SourceRule:
    """A new rule of the tenant, with its audit entry. 422 for a rule that could not apply (a site
    or URL rule without an http(s) URL, an allow rule of a URL prefix); 409 when the tenant has
    the same rule (kind, target and value) already."""
    rule = SourceRule(
        tenant=tenant, kind=kind, target=target, value=value.strip(), audiences=list(audiences), note=note
    )
    problems = rule.problems()
    if problems:
        field, message = next(iter(problems.items()))
        raise value_error(field, message, v2_type="value_error.url" if field == "value" else "value_error")
    with transaction.atomic():
        if SourceRule.objects.for_tenant(tenant).filter(kind=kind, target=target, value=rule.value).exists():
            raise _duplicate(rule)
        try:
            with transaction.atomic():
                rule.save(force_insert=True)
        except IntegrityError:  # a concurrent create of the same rule won the race
            raise _duplicate(rule) from None
        _rule_audit(rule, "SOURCE_RULE_CREATED", actor, request_id)
    return rule


def source_rule_delete(*, tenant: Tenant, rule_id: str, actor: dict, request_id: str | None) -> dict:
    """Remove the tenant's rule, with its audit entry: `{rule_id, deleted_at}`. 404 for an unknown
    rule or another tenant's (also when a concurrent delete removed it first)."""
    with transaction.atomic():
        rule = source_rule_get(tenant=tenant, rule_id=rule_id)
        removed, _ = SourceRule.objects.for_tenant(tenant).filter(id=rule.id).delete()
        if not removed:
            raise ResourceNotFound("No such source rule in this tenant.")
        _rule_audit(rule, "SOURCE_RULE_DELETED", actor, request_id)
    return {"rule_id": rule.public_id, "deleted_at": iso_ms(timezone.now())}


def _duplicate(rule: SourceRule) -> Conflict:
    return Conflict(
        f"This tenant already has the {rule.kind} rule for {rule.target} {rule.value!r}.",
        code="SOURCE_RULE_EXISTS",
    )


def _rule_audit(rule: SourceRule, action: str, actor: dict, request_id: str | None) -> None:
    audit_record(
        tenant=rule.tenant,
        action=action,
        category="knowledge",
        actor=actor,
        resource={"type": "source_rule", "id": rule.public_id, "name": f"{rule.kind} {rule.target}"},
        details={"kind": rule.kind, "target": rule.target, "value": rule.value, "audiences": rule.audiences},
        request_id=request_id,
    )


@dataclass(frozen=True)
class SitelibQuery:
    site_urls: list[str]
    sub_sites: list[str]
    drives: list[str]
    folders: list[str]
    audience: list[str]
    blacklisted: bool
    source_restriction: bool

    def sub_site_wanted(self, site: Site) -> bool:
        if not self.sub_sites:
            return True
        wanted = {value.strip().lower() for value in self.sub_sites}
        return site.name.lower() in wanted or site_url_key(site.url) in {
            site_url_key(v) for v in self.sub_sites
        }

    def drive_wanted(self, drive: Drive) -> bool:
        return drive_named(drive, self.drives)

    def folder_wanted(self, folder: Folder) -> bool:
        for value in self.folders:
            value = value.strip()
            if value == ALL_FOLDERS or value == folder.id or value.lower() == folder.name.lower():
                return True
            tail = value.strip("/").lower()
            if tail and (folder.path.lower().rstrip("/") + "/").endswith("/" + tail + "/"):
                return True
        return False


def sitelib_listing(*, tenant: Tenant, credentials: SitelibCredentials, query: SitelibQuery) -> list[dict]:
    # The rules are read here, in the request's thread: the pool threads below never use the ORM.
    rules = source_rules_get(
        tenant=tenant,
        audience=query.audience,
        blacklisted=query.blacklisted,
        source_restriction=query.source_restriction,
    )
    client = SitelibClient(
        graph_url=settings.SITELIB_GRAPH_URL, login_url=settings.SITELIB_LOGIN_URL, credentials=credentials
    )
    with client, platform_call(credentials_at=("authorization",)):
        sites = _sites_with_drives(client, query, rules)
        if query.folders:
            drives = [drive for site in sites for drive in site.drives]
            for drive, folders in zip(drives, client.folders_of([d.id for d in drives]), strict=True):
                drive.folders = [f for f in folders if query.folder_wanted(f)]
    return [_site_record(site) for site in sites if _site_kept(site, query, rules)]


def _sites_with_drives(client: SitelibClient, query: SitelibQuery, rules: SourceRules) -> list[Site]:
    """The top sites, then each one's sub-sites, every site with its drives (`site_tree`: rounds
    of JSON batches)."""
    if query.site_urls:
        top = client.fan_out(lambda url: _site_at(client, query, url), query.site_urls)
    else:
        top = client.sites_all()
    return client.site_tree(
        [site for site in top if not rules.site_blocked(site.url)],
        sub_site_kept=lambda site: query.sub_site_wanted(site) and not rules.site_blocked(site.url),
        drive_kept=lambda site, drive: query.drive_wanted(drive) and rules.drive_visible(site.url, drive.id),
    )


def _site_at(client: SitelibClient, query: SitelibQuery, url: str) -> Site:
    try:
        return client.site_by_url(url)
    except VendorNotFound as exc:
        index = query.site_urls.index(url)
        raise value_error(
            ("site_urls", index),
            "No site at this URL, or the app may not see it.",
            v2_type="value_error.site",
        ) from exc


def _site_kept(site: Site, query: SitelibQuery, rules: SourceRules) -> bool:
    """A site stays unless a filter left it without drives: asking for certain drives, or an
    allow list that admits only some of its drives, drops the sites that have none of them."""
    if site.drives:
        return True
    return not query.drives and rules.site_allowed(site.url)


def _site_record(site: Site) -> dict:
    return {
        "id": site.id,
        "name": site.name,
        "url": site.url,
        "drives": [_drive_record(d) for d in site.drives],
    }


def _drive_record(drive: Drive) -> dict:
    record = {"id": drive.id, "name": drive.name, "driveType": drive.drive_type}
    if drive.folders is not None:
        record["folders"] = [
            {"id": f.id, "name": f.name, "path": f.path, "webUrl": f.web_url, "childCount": f.child_count}
            for f in drive.folders
        ]
    return record


# ---- wiki


def wiki_space_listing(*, instance_url: str, username: str, api_token: str) -> list[dict]:
    with (
        platform_call(url_field=("instance_url",)),
        WikiClient(base_url=instance_url, username=username, api_token=api_token) as client,
    ):
        guard_url(instance_url)  # refused before any connection is attempted
        try:
            spaces = client.spaces()
        except VendorNotFound as exc:
            raise UpstreamUnavailable("No wiki API (v2 or v1) answers at this instance URL.") from exc
    return [{"key": s.key, "name": s.name, "type": s.type, "status": s.status} for s in spaces]


# ---- ITSM


def itsm_kb_listing(*, instance: str, credentials: ItsmCredentials) -> list[dict]:
    with (
        platform_call(url_field=("itsmplatform_domain",)),
        ItsmClient(instance=instance, credentials=credentials) as client,
    ):
        guard_url(client.base_url)
        bases = client.knowledge_bases()
    return [
        {
            "sys_id": kb.sys_id,
            "title": kb.title,
            "description": kb.description,
            "article_count": kb.article_count,
            "active": kb.active,
        }
        for kb in bases
    ]
