"""Every five minutes, the runs whose worker is gone are sent again (tasks.send_lost_runs_again),
as a django-celery-beat task operators can edit in the admin."""

from django.db import migrations

NAME = "Send again the runs of lost workers"


def create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    schedule, _ = IntervalSchedule.objects.get_or_create(every=5, period="minutes")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": "verification.send_lost_runs_again",
            "interval": schedule,
            "description": "Runs left running by a worker that was killed: sent again.",
        },
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("verification", "0011_run_inputs_and_confirmations"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
