"""The audit browser (read-only): one line per entry; the detail shows the entry, its place in its
hash chain and whether it and its links verify. The archive files' records, read-only too."""

from collections import Counter

from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery
from django.utils.html import format_html

from core.audit import link_hash
from core.console import (
    AUDITORS,
    ReadOnlyAdmin,
    TenantFilter,
    TenantScopedAdmin,
    good,
    json_block,
    to_the_second,
    warning,
)
from core.models import AuditEntry, Tenant
from core.people import person_label, resource_label
from ops.archive import audit_chain_verify_archived
from ops.models import AuditArchive


class ActorFilter(admin.SimpleListFilter):
    title = "actor"
    parameter_name = "actor"

    def lookups(self, request, model_admin):
        entries = model_admin.get_queryset(request).order_by()
        rows = entries.values_list("actor_id", "actor").distinct()[:200]
        labels = {actor_id: person_label(actor) for actor_id, actor in rows if actor_id}
        taken = Counter(labels.values())
        # Two actors of one name (a key made again under its old name) are told apart by their ids.
        return sorted(
            (
                (actor_id, f"{label} {actor_id[-6:]}" if taken[label] > 1 else label)
                for actor_id, label in labels.items()
            ),
            key=lambda row: row[1],
        )

    def queryset(self, request, queryset):
        return queryset.filter(actor_id=self.value()) if self.value() else queryset


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    """The audit browser: one line per entry; the detail shows the entry, its place in its hash
    chain and whether that chain verifies. Nothing here writes."""

    list_display = ("time", "action", "actor_label", "resource_name", "status_label", "tenant_name")
    list_display_links = ("time", "action")
    list_filter = (TenantFilter, "action", ActorFilter, "resource_type", "status", "category")
    date_hierarchy = "timestamp"
    search_fields = ("action", "actor_id", "actor__name", "resource__name", "resource__id", "request_id")
    search_help_text = "Action, actor (name or id), resource (name or id) or request id."
    ordering = ("-timestamp",)
    list_per_page = 50
    actions = ["verify_chain"]
    view_roles = AUDITORS
    tenant_column = "tenant_name"
    fieldsets = [
        (None, {"fields": ["time", "action", "category", "status_label", "tenant_name", "request_id"]}),
        ("Who and what", {"fields": ["actor_detail", "resource_detail", "details_json"]}),
        ("Hash chain", {"fields": ["chain", "seq", "hash_code", "prev_hash_code", "verification"]}),
    ]
    readonly_fields = [
        "time",
        "action",
        "category",
        "status_label",
        "tenant_name",
        "request_id",
        "actor_detail",
        "resource_detail",
        "details_json",
        "chain",
        "seq",
        "hash_code",
        "prev_hash_code",
        "verification",
    ]

    class Media:
        css = {"all": ("core/console.css",)}

    def get_queryset(self, request):
        names = Tenant.objects.filter(id=OuterRef("tenant_id")).values("name")[:1]
        return super().get_queryset(request).annotate(tenant_name_=Subquery(names))

    @admin.display(description="time (UTC)", ordering="timestamp")
    def time(self, entry: AuditEntry) -> str:
        return to_the_second(entry.timestamp)

    @admin.display(description="actor", ordering="actor_id")
    def actor_label(self, entry: AuditEntry) -> str:
        return person_label(entry.actor)

    @admin.display(description="resource", ordering="resource_type")
    def resource_name(self, entry: AuditEntry) -> str:
        return resource_label(entry.resource)

    @admin.display(description="status", ordering="status")
    def status_label(self, entry: AuditEntry):
        return entry.status if entry.status == AuditEntry.Status.SUCCESS else warning(entry.status)

    @admin.display(description="tenant")
    def tenant_name(self, entry: AuditEntry) -> str:
        return getattr(entry, "tenant_name_", None) or (
            "platform" if entry.tenant_id is None else "(deleted)"
        )

    @admin.display(description="actor")
    def actor_detail(self, entry: AuditEntry) -> str:
        actor = entry.actor or {}
        parts = [person_label(actor), actor.get("email"), actor.get("id"), actor.get("ipAddress")]
        return " · ".join(str(part) for part in parts if part)

    @admin.display(description="resource")
    def resource_detail(self, entry: AuditEntry) -> str:
        resource_id = (entry.resource or {}).get("id")
        label = resource_label(entry.resource)
        return f"{label} ({resource_id})" if resource_id and resource_id not in label else label

    @admin.display(description="details")
    def details_json(self, entry: AuditEntry):
        return json_block(entry.details)

    @admin.display(description="hash")
    def hash_code(self, entry: AuditEntry):
        return format_html('<span class="console-hash">{}</span>', entry.hash)

    @admin.display(description="previous hash")
    def prev_hash_code(self, entry: AuditEntry):
        return format_html('<span class="console-hash">{}</span>', entry.prev_hash)

    @admin.display(description="verification")
    def verification(self, entry: AuditEntry):
        """The entry's own hash and its links to the entries on either side, whatever the chain's
        length; the list's action verifies whole chains, archives included."""
        if link_hash(entry) != entry.hash:
            return warning("This entry was altered after it was written: its hash does not match.")
        before, after = entry.seq - 1, entry.seq + 1
        around = AuditEntry.objects.filter(chain=entry.chain, seq__in=(before, after))
        links = {seq: (hash_, prev) for seq, hash_, prev in around.values_list("seq", "hash", "prev_hash")}
        if before in links and links[before][0] != entry.prev_hash:
            return warning(f"This entry does not link to #{before} before it: the chain is broken here.")
        if after in links and links[after][1] != entry.hash:
            return warning(f"#{after} after it does not link to this entry: the chain is broken here.")
        return good(
            f"Intact: this entry's hash matches its contents, and it links to its neighbours in chain "
            f"{entry.chain}. “Verify the hash chain” on the list checks the whole chain."
        )

    @admin.action(description="Verify the hash chain of the selected entries' tenants")
    def verify_chain(self, request, queryset):
        for chain in sorted(set(queryset.values_list("chain", flat=True))):
            problems = audit_chain_verify_archived(chain)
            if problems:
                self.message_user(request, f"Chain {chain}: {'; '.join(problems)}", messages.ERROR)
            else:
                self.message_user(request, f"Chain {chain}: intact.", messages.SUCCESS)


@admin.register(AuditArchive)
class AuditArchiveAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only: the auditLogArchive job writes these; `verify_audit_chain` reads them."""

    list_display = ("chain", "first_seq", "last_seq", "entries", "first_timestamp", "last_timestamp", "path")
    list_filter = (TenantFilter,)
    search_fields = ("chain", "path", "sha256")
    ordering = ("chain", "first_seq")
