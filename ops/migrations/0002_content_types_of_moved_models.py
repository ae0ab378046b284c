"""Content types (and so permissions and the admin's log entries) of the models that moved out of
the old `adminops` app follow them to their new apps. A new database has none to move."""

from django.db import migrations

MOVED = {
    "core": ["tenant", "auditentry", "auditchainhead", "jobrun"],
    "identity": ["user", "membership", "identityrealm", "apikey", "oauthclient", "serviceaccount"],
    "ops": ["auditarchive", "usagereport"],
}


def relabel(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
    for label, models in MOVED.items():
        for model in models:
            if not content_types.filter(app_label=label, model=model).exists():
                content_types.filter(app_label="adminops", model=model).update(app_label=label)


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
        ("identity", "0001_initial"),
        ("ops", "0001_initial"),
    ]

    operations = [migrations.RunPython(relabel, migrations.RunPython.noop)]
