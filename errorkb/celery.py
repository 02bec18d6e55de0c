"""The Celery app, configured from Django settings (CELERY_* names)."""

import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_process_init, worker_ready
from celery.utils.log import get_logger

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")

logger = get_logger(__name__)

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


@worker_ready.connect
def mirror_scenario_registry(sender, **kwargs):
    """The trainer's registry, mirrored on every worker start: nobody runs sync_scenarios.

    The worker also announces what it runs scenarios with (its trainer's code, torch), for
    each device its queues serve: the nightly sweep runs again what that changes.
    """
    from django.db import connections

    from errorkb.verification.fingerprints import announce
    from errorkb.verification.routing import served_devices
    from errorkb.verification.sync import sync_scenarios

    try:
        logger.info("scenarios: %s", sync_scenarios())
        devices = served_devices(sender.app.amqp.queues.consume_from)
        announce(devices, host=sender.hostname)
        logger.info("announced the environment of %s", ", ".join(devices) or "no device")
    finally:
        connections.close_all()  # the pool's processes must not share the parent's connection


@worker_ready.connect
def send_lost_runs_again(sender, **kwargs):
    """The runs a worker killed on this host left `running`, sent again as this one starts.

    In this process, not as a task: another host's worker would look for its own host's
    dead processes. The schedule does the same every few minutes, wherever it runs.
    """
    from django.db import connections

    from errorkb.verification import tasks

    try:
        logger.info("sent again %d runs of lost workers", tasks.send_lost_runs_again())
    finally:
        connections.close_all()


@worker_process_init.connect
def start_fork_server(**kwargs):
    # Each pool process keeps a fork server for warm scenario runs; it imports torch now,
    # while the process waits for its first task (trainer.launch).
    from django.conf import settings

    if settings.VERIFY_START == "warm":
        from trainer import launch

        launch.prestart()
