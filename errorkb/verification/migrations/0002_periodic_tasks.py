"""The scheduler's tasks, as django-celery-beat rows operators can edit in the admin.

The nightly sweep reproduces every published entry's scenarios; every five minutes, the
runs whose worker is gone are sent again (tasks.send_lost_runs_again).
"""

from django.db import migrations

NIGHTLY = "Nightly verification sweep"
LOST_RUNS = "Send again the runs of lost workers"


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    nightly, _ = CrontabSchedule.objects.get_or_create(
        minute="0", hour="3", day_of_week="*", day_of_month="*", month_of_year="*", timezone="UTC"
    )
    PeriodicTask.objects.get_or_create(
        name=NIGHTLY,
        defaults={
            "task": "verification.sweep",
            "crontab": nightly,
            "description": "Reproduce every published entry's scenarios, failure and fix.",
        },
    )
    every_five_minutes, _ = IntervalSchedule.objects.get_or_create(every=5, period="minutes")
    PeriodicTask.objects.get_or_create(
        name=LOST_RUNS,
        defaults={
            "task": "verification.send_lost_runs_again",
            "interval": every_five_minutes,
            "description": "Runs left running by a worker that was killed: sent again.",
        },
    )


def remove(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[NIGHTLY, LOST_RUNS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("verification", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
