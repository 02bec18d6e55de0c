"""The curator and editor groups: curators edit and submit entries, editors also publish."""

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


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("kb", "0003_curation"),
        ("verification", "0004_run_worker_pid"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
