"""Keeping a lookup at its reader's request, and finding it again by its key."""

import re

from .lookups import check_text
from .models import KEY_LENGTH, KeptLookup

KEY_RE = re.compile(rf"[A-Za-z0-9_-]{{{KEY_LENGTH}}}")


def keep_lookup(text: str) -> KeptLookup:
    """Keep the text under a new key; TextError for a text the lookup will not read.

    NUL characters, which a terminal's log may hold and PostgreSQL cannot, are kept as
    U+FFFD, as a browser shows them.
    """
    check_text(text)
    return KeptLookup.objects.create(text=text.replace("\x00", "\ufffd"))


def kept_lookup(key: str) -> KeptLookup | None:
    """The lookup kept under the key, else None; an impossible key is not looked up."""
    if not KEY_RE.fullmatch(key):
        return None
    return KeptLookup.objects.filter(pk=key).first()
