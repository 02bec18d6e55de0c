"""How the parts of an address are spelled: entry ids, repository names, slugs and tags.

Declared once, below the models, so that the models' validators (the admin's forms,
full_clean), the record's declaration (import, upload, the API's document) and the
URLconf's converters agree: a value one of them accepts, reverse() can build an address
from. page_address is the only way a page builds such an address from a stored row, so
a row written past the validators (raw SQL) is shown unlinked instead of failing the page.
"""

import logging
import re

from django.core.validators import RegexValidator
from django.urls import NoReverseMatch, reverse

from ..ids import ENTRY_ID_LENGTH

logger = logging.getLogger(__name__)

# \Z, not $: a $ also matches before a trailing newline, which would slip into a slug, a
# tag or a repository name, and then into addresses that reverse() refuses to build.
# SHA_RE keeps $: the API's OpenAPI document states its pattern, in a dialect without \Z.
ID_RE = re.compile(rf"^[0-9a-f]{{{ENTRY_ID_LENGTH}}}\Z")
REPOSITORY_PART_RE = re.compile(r"^[A-Za-z0-9_.-]+\Z")  # an owner, or a repository's name
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+\Z")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9+#._-]*\Z")
# A release as the scanner names it: its tag without the prefix ("0.19.1", "0.22.0-pre.1").
RELEASE_RE = re.compile(r"^\d+(\.\d+)*(-[0-9A-Za-z.]+)?\Z")

ID_MISMATCH = f"must be {ENTRY_ID_LENGTH} lowercase hex characters"
REPO_MISMATCH = "must look like owner/name"
REPOSITORY_PART_MISMATCH = "must be letters, digits, '.', '_' or '-'"
SLUG_MISMATCH = "must be lowercase words joined by hyphens"
TAG_MISMATCH = "must be a lowercase tag: a letter or digit, then letters, digits or + # . _ -"

# The models' validators: the admin's forms and full_clean refuse with the same words.
validate_entry_id = RegexValidator(ID_RE, f"An entry id {ID_MISMATCH}.")
validate_repository_part = RegexValidator(
    REPOSITORY_PART_RE, f"A repository's owner or name {REPOSITORY_PART_MISMATCH}."
)
validate_slug = RegexValidator(SLUG_RE, f"A slug {SLUG_MISMATCH}.")
validate_tag = RegexValidator(TAG_RE, f"A tag {TAG_MISMATCH}.")


def page_address(viewname: str, **kwargs: str) -> str:
    """The address of a page about a stored row, or "" when the row's values cannot form one.

    The validators keep such rows out; one written past them (raw SQL) is logged, and its
    page shows it as text instead of failing as a whole.
    """
    try:
        return reverse(viewname, kwargs=kwargs)
    except NoReverseMatch:
        logger.warning("No address for %s from %r: a stored value is misspelled", viewname, kwargs)
        return ""
