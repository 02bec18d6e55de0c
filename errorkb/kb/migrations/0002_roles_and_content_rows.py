"""The curator and editor groups, and the content version's rows.

Curators edit and submit entries; editors also publish and manage the catalog
(errorkb.kb.roles). The content version's rows are written here so that concurrent
writers find one free from the start (ContentVersion.CONTENT_ROWS, errorkb.kb.changes).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from errorkb.kb.roles import GROUPS


def create_groups(apps, schema_editor):
    # Permissions are normally created after all migrations have run; make them now so
    # that a fresh database gets its groups in this migration.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, wanted in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        for app_label, codename in wanted:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


def write_content_rows(apps, schema_editor):
    ContentVersion = apps.get_model("kb", "ContentVersion")
    rows = (1, *range(3, 18))  # ContentVersion.CONTENT_ROWS as this migration knows them
    ContentVersion.objects.bulk_create(
        [ContentVersion(id=row, token="") for row in rows], ignore_conflicts=True
    )


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("kb", "0001_initial"),
        ("verification", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(create_groups, remove_groups),
        migrations.RunPython(write_content_rows, migrations.RunPython.noop),
    ]
