"""The entry list: search by message, file and tag; filter by status and verification."""

import pytest

from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries():
    return import_records(
        make_record("Can save model checkpoint.", tags=["checkpoint", "io"]),
        make_record("Tensor shape mismatch.", filePath="src/tensor.rs", status="draft"),
    )


@pytest.fixture
def listed():
    client = client_for(curator())

    def get(query: dict) -> str:
        response = client.get("/admin/kb/errorentry/", query)
        assert response.status_code == 200
        return response.content.decode()

    return get


def test_search_finds_entries_by_message_file_and_tag(entries, listed):
    assert "Tensor shape mismatch." in listed({"q": "tensor.rs"})
    assert "Can save model checkpoint." not in listed({"q": "tensor.rs"})
    assert "Can save model checkpoint." in listed({"q": "checkpoint"})
    assert "Tensor shape mismatch." not in listed({"q": "io"})


def test_filters_narrow_by_status_and_verification_state(entries, listed):
    drafts = listed({"status__exact": "draft"})
    assert "Tensor shape mismatch." in drafts and "Can save model checkpoint." not in drafts
    assert "Tensor shape mismatch." in listed({"verification": "unverified"})
    assert "Tensor shape mismatch." not in listed({"verification": "verified"})
