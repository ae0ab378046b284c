"""Connection health: `health`, `health_checked_at` (was `last_checked_at`) and `health_error`
replace the last test's `last_check_*` fields, carried over."""

from django.db import migrations, models


def carry_last_check(apps, schema_editor):
    Connection = apps.get_model("toolhub", "Connection")
    for ok, health in ((True, "healthy"), (False, "unhealthy")):
        Connection.objects.filter(last_check_ok=ok).update(health=health)
    for row in Connection.objects.filter(last_check_ok=False).exclude(last_check_message=""):
        Connection.objects.filter(id=row.id).update(health_error=row.last_check_message[:300])


class Migration(migrations.Migration):
    dependencies = [
        ("toolhub", "0003_execution_tenant_index_dropped"),
    ]

    operations = [
        migrations.AddField(
            model_name="connection",
            name="health",
            field=models.CharField(
                choices=[("unknown", "Unknown"), ("healthy", "Healthy"), ("unhealthy", "Unhealthy")],
                default="unknown",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="connection",
            name="health_error",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.RunPython(carry_last_check, migrations.RunPython.noop),
        migrations.RenameField(
            model_name="connection",
            old_name="last_checked_at",
            new_name="health_checked_at",
        ),
        migrations.RemoveField(model_name="connection", name="last_check_message"),
        migrations.RemoveField(model_name="connection", name="last_check_ok"),
    ]
