"""The Celery app, configured from Django settings (CELERY_* names)."""

import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

app = Celery("errorkb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def make_broker_folders(sender, **kwargs):
    # The embedded broker keeps messages in folders; they must exist before use.
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@worker_process_init.connect
def start_fork_server(**kwargs):
    # Each pool process keeps a fork server for warm scenario runs; it imports torch now,
    # while the process waits for its first task (trainer.warm).
    from django.conf import settings

    if settings.VERIFY_START == "warm":
        from trainer import warm

        warm.prestart()
