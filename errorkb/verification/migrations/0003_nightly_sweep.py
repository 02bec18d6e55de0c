"""The nightly verification sweep, as a django-celery-beat task curators can edit in the admin."""

from django.db import migrations

NAME = "Nightly verification sweep"


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    schedule, _ = CrontabSchedule.objects.get_or_create(
        minute="0", hour="3", day_of_week="*", day_of_month="*", month_of_year="*", timezone="UTC"
    )
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": "verification.sweep",
            "crontab": schedule,
            "description": "Reproduce every published entry's scenarios, failure and fix.",
        },
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("verification", "0002_notify_changes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
