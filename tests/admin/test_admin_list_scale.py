"""The entry list stays a handful of queries: no full count, tag choices from the tags."""

import pytest

from errorkb.kb.models import Tag
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator

pytestmark = pytest.mark.django_db
LIST = "/admin/kb/errorentry/"


@pytest.fixture
def client():
    return client_for(curator())


def add_entries(count: int, **overrides) -> None:
    import_records(
        *[
            make_record(f"Entry number {n} failed.", filePath=f"src/e{n}.rs", **overrides)
            for n in range(count)
        ]
    )


def test_the_tag_filter_offers_the_tags_entries_have_and_no_other(client):
    add_entries(2, tags=["checkpoint", "io"])
    Tag.objects.create(name="nobody-has-it")
    page = client.get(LIST).content.decode()
    assert "?entry_tags__tag__id__exact=" in page
    for name in ("checkpoint", "io"):
        tag = Tag.objects.get(name=name)
        assert f"?entry_tags__tag__id__exact={tag.pk}" in page
    unused = Tag.objects.get(name="nobody-has-it")
    assert f"?entry_tags__tag__id__exact={unused.pk}" not in page


def test_a_filtered_list_counts_its_rows_and_not_every_entry(client):
    add_entries(3)
    page = client.get(LIST, {"verification": "unverified"}).content.decode()
    assert "3 results" in page
    # show_full_result_count off: no "(N total)" link, and no count of the whole table.
    assert "total)" not in page


@pytest.mark.parametrize("state", ["drifted", "unverified"])
def test_the_state_filter_stays_within_a_fixed_number_of_queries(
    client, django_assert_max_num_queries, state
):
    add_entries(30)
    # Session, user, the page's count and rows, the repository and tag filters' choices,
    # and the admin's own few: never one per row.
    with django_assert_max_num_queries(8):
        assert client.get(LIST, {"verification": state}).status_code == 200
