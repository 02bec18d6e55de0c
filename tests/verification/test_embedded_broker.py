"""The embedded broker (files in a folder) hands a worker only whole messages."""

from django.conf import settings


def test_the_default_broker_writes_through_errorkbs_transport():
    assert settings.CELERY_BROKER_URL == "filesystem://"
    assert settings.CELERY_BROKER_TRANSPORT == "errorkb.broker:Transport"
