"""The entry page and the API say what a verification is: a run of the reference trainer, a
PyTorch mirror of burn's checkpointing, not a run of burn itself."""

import re

import pytest
from django.utils.html import escape

from errorkb.verification.models import VERIFIED_MEANS

pytestmark = pytest.mark.django_db


def test_the_definition_names_the_mirror_and_denies_a_run_of_burn():
    assert "reference trainer" in VERIFIED_MEANS
    assert "PyTorch mirror of burn's checkpointing" in VERIFIED_MEANS
    assert "not by a run of burn itself" in VERIFIED_MEANS
    assert "burn's own file formats" in VERIFIED_MEANS


def test_the_api_detail_says_what_a_verification_is(client, entry):
    body = client.get(f"/api/errors/{entry.id}").json()
    assert body["verifiedMeans"] == VERIFIED_MEANS


def test_the_openapi_document_describes_the_definition(client):
    schema = client.get("/api/schema/?format=json").json()
    field = schema["components"]["schemas"]["ErrorResponse"]["properties"]["verifiedMeans"]
    assert "not a run of burn itself" in field["description"]


def test_the_entry_page_says_it_in_the_verification_panel_and_links_it_from_the_proof(
    client, entry
):
    page = client.get(entry.get_absolute_url()).content.decode()
    panel = page[page.index('<section id="verification"') :]
    means = f'<p id="verified-means" class="meta verified-means">{escape(VERIFIED_MEANS)}</p>'
    assert means in panel
    proof = re.search(r'<p id="proof".*?</p>', page, re.S).group(0)
    assert '<a href="#verified-means">What a run proves</a>' in proof
