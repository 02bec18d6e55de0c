"""A lookup its reader chose to keep: the pasted text, under an address to share."""

import secrets

from django.db import models
from django.urls import reverse

KEY_LENGTH = 16  # characters of token_urlsafe(12): 96 random bits, no address to guess


def new_key() -> str:
    return secrets.token_urlsafe(12)


class KeptLookup(models.Model):
    """A pasted text, kept because its reader asked for an address to share.

    Only the text is kept: /lookup/<key>/ runs the lookup again, against the entries and
    their states as they are then. Nothing is kept unless the reader asks.
    """

    key = models.CharField(primary_key=True, max_length=KEY_LENGTH, default=new_key)
    text = models.TextField()
    kept_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key

    def get_absolute_url(self) -> str:
        return reverse("lookup:kept", args=[self.key])
