# Two tool keys broke the <domain>.<resource>.<verb> rule and were renamed: the patterns that named
# them (API keys' and OAuth clients' tool patterns, approval policies) name the new keys.

from django.db import migrations

RENAMED = {
    "itsm.user.role.grant": "itsm.user_role.grant",
    "itsm.user.role.*": "itsm.user_role.*",
    "wiki.space.permission.add": "wiki.space_permission.add",
    "wiki.space.permission.*": "wiki.space_permission.*",
}
FIELDS = (
    ("identity", "ApiKey", ("tool_patterns",)),
    ("identity", "OAuthClient", ("tool_patterns",)),
    ("toolhub", "ApprovalPolicy", ("always_gate", "never_gate")),
)


def rename_patterns(apps, schema_editor):
    for app, model_name, fields in FIELDS:
        model = apps.get_model(app, model_name)
        for row in model.objects.all().iterator():
            changed = [f for f in fields if any(p in RENAMED for p in getattr(row, f) or [])]
            for name in changed:
                setattr(row, name, [RENAMED.get(p, p) for p in getattr(row, name)])
            if changed:
                row.save(update_fields=changed)


class Migration(migrations.Migration):
    dependencies = [
        ("identity", "0001_initial"),
        ("toolhub", "0005_approval_channel_and_console_labels"),
    ]

    operations = [migrations.RunPython(rename_patterns, migrations.RunPython.noop)]
