"""An entry page's body: rendered once per content, kept by the hash of its inputs."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.web import renderings
from errorkb.web.models import Rendering
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def record():
    record = make_record(documentation="The engine **gave up**.")
    import_records(record)
    return record


def cold_read(client, record):
    response = client.get(f"/errors/{record['id']}/", HTTP_CACHE_CONTROL="no-cache")
    assert response.status_code == 200
    return response.content.decode()


def test_it_renders_a_body_once_and_reads_it_back_after(client, record, monkeypatch):
    first = cold_read(client, record)
    assert Rendering.objects.count() == 1

    def never(inputs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(renderings, "render_body", never)
    assert cold_read(client, record) == first


def test_it_renders_a_changed_entry_afresh(client, record):
    cold_read(client, record)
    ErrorEntry.objects.filter(id=record["id"]).update(documentation="Now *explained*.")
    page = cold_read(client, record)
    assert "Now <em>explained</em>." in page
    assert "gave up" not in page
    assert Rendering.objects.count() == 2


def test_it_keeps_what_a_fresh_rendering_gives(client, record):
    cold_read(client, record)
    entry = ErrorEntry.objects.select_related("repository").get(id=record["id"])
    kept = Rendering.objects.get()
    fresh = renderings.render_body(renderings.body_inputs(entry))
    assert (kept.description, kept.html) == (fresh.description, fresh.html)
    assert kept.description == "The engine gave up."
