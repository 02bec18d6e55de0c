"""The seed record survives import and comes back from the API exactly as given."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.builders import SHARED

SEED = SHARED / "seeds" / "001_96ea0f7d8f2255fb.txt"

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not SEED.exists(), reason="../shared/seeds is not beside this checkout"),
]


def test_it_serves_every_seed_key_with_the_seeds_value(client):
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    call_command("import_errors", str(SEED), stdout=StringIO())
    body = client.get("/api/errors/d46a3ac9838c7fb3").json()
    for key, value in seed["record"].items():
        assert body["record"][key] == value, key
        assert type(body["record"][key]) is type(value), key
    assert list(body["record"])[: len(seed["record"])] == list(seed["record"])
    assert body["datasetVersion"] == seed["datasetVersion"]


def test_it_serves_the_seed_entry_as_a_page(client):
    call_command("import_errors", str(SEED), stdout=StringIO())
    html = client.get(
        "/repos/tracel-ai/burn/errors/can-save-optimizer-checkpoint/"
    ).content.decode()
    assert 'id="L-181"' in html and "pinned to d16f7ba2ed" in html
