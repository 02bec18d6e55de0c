"""kb.addresses.address gives what reverse() gives, for every value reverse() takes."""

import pytest
from django.urls import NoReverseMatch, reverse, set_script_prefix

from errorkb.kb.addresses import address

CASES = [
    ("kb:home", {}),
    ("kb:tag", {"tag": "disk-full"}),
    ("kb:entry-by-id", {"entry_id": "0123456789abcdef"}),
    ("kb:entry", {"owner": "tracel-ai", "name": "burn", "slug": "can-save-model-checkpoint"}),
    # The arguments in another order than the pattern's.
    ("kb:entry", {"slug": "a-slug", "name": "burn.rs", "owner": "Tracel_AI"}),
    ("api-error-detail", {"pk": "0123456789abcdef"}),
]


@pytest.mark.parametrize(("viewname", "kwargs"), CASES)
def test_an_address_is_what_reverse_gives(viewname, kwargs):
    assert address(viewname, **kwargs) == reverse(viewname, kwargs=kwargs)
    assert address(viewname, **kwargs) == reverse(viewname, kwargs=kwargs)  # from its template


def test_a_value_that_needs_quoting_is_quoted_as_reverse_quotes_it():
    address("kb:repository", owner="acme", name="rocket")  # a template is made
    for name in ("a b", "é", "x?y", "-lead"):
        kwargs = {"owner": "acme", "name": name}
        assert address("kb:repository", **kwargs) == reverse("kb:repository", kwargs=kwargs)


def test_a_value_reverse_refuses_is_refused():
    address("kb:tag", tag="io")
    with pytest.raises(NoReverseMatch):
        address("kb:tag", tag="Not A Tag!")


def test_the_script_prefix_is_part_of_the_address():
    address("kb:tag", tag="io")
    set_script_prefix("/kb/")
    try:
        assert (
            address("kb:tag", tag="io") == "/kb/tags/io/" == reverse("kb:tag", kwargs={"tag": "io"})
        )
    finally:
        set_script_prefix("/")
