"""The content token public pages' validators are derived from."""

from django.db import models


class ContentVersion(models.Model):
    """One row whose token changes with every committed write to what public pages show.

    Database triggers (errorkb.kb.freshness) write it, so every write path moves it on:
    the ORM, QuerySet.update(), the admin, raw SQL, another host.
    """

    ROW = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=ROW)
    token = models.CharField(max_length=64)

    def __str__(self) -> str:
        return self.token
