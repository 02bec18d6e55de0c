"""Every page's header: a search box and the paste-an-error link; the home page's form."""

import pytest

from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

SEARCH_FORM = '<form action="/search/" method="get" role="search"'


@pytest.fixture
def entry():
    (entry,) = import_records(make_record("Boat sank.", tags=["fuel"]))
    return entry


def pages(entry) -> list[str]:
    return [
        "/",
        "/repos/acme/rocket/",
        "/tags/fuel/",
        entry.get_absolute_url(),
        f"/errors/{entry.id}/report/",
        "/verification/",
        "/no/such/page/",
    ]


def test_every_page_has_the_search_box_and_the_lookup_link(client, entry):
    for url in pages(entry):
        html = client.get(url).content.decode()
        header = html[html.index('<header class="site">') : html.index("</header>")]
        assert SEARCH_FORM in header, url
        assert '<input type="search" name="q"' in header, url
        assert '<a href="/lookup/" id="paste-link">Paste an error</a>' in header, url


def test_the_home_page_offers_the_paste_form_before_the_lists(client, entry):
    html = client.get("/").content.decode()
    form = html.index('<form class="lookup-form" method="post" action="/lookup/">')
    assert form < html.index('id="repositories"') < html.index('id="recent"')
    assert '<textarea id="lookup-text" name="text"' in html
