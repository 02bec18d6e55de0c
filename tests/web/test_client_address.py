"""The reader's address behind trusted proxies, and the two limits that count by it."""

from ipaddress import ip_network

import pytest
from axes.models import AccessAttempt, AccessLog
from django.test import Client, RequestFactory

from errorkb.http.clients import client_address
from errorkb.kb.models import Report
from tests.builders import import_records, make_record
from tests.kb.people import make_user

PROXY = "10.0.0.1"
READER = "203.0.113.7"


@pytest.fixture
def trusted(settings):
    settings.TRUSTED_PROXIES = [ip_network("10.0.0.0/8"), ip_network("2001:db8::/32")]
    return settings


def address(remote_addr: str, forwarded_for: str | None = None) -> str:
    extra = {"REMOTE_ADDR": remote_addr}
    if forwarded_for is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded_for
    return client_address(RequestFactory().get("/", **extra))


def test_it_is_the_peer_address_when_no_proxy_is_trusted(settings):
    settings.TRUSTED_PROXIES = []
    assert address(PROXY, READER) == PROXY


def test_it_ignores_forwarded_for_from_an_untrusted_peer(trusted):
    assert address("198.51.100.9", READER) == "198.51.100.9"


def test_it_takes_the_reader_a_trusted_proxy_forwarded_for(trusted):
    assert address(PROXY, READER) == READER


def test_it_walks_from_the_right_past_trusted_proxies_only(trusted):
    # The reader wrote the leftmost address; the proxies appended the rest.
    assert address(PROXY, f"192.0.2.66, {READER}, 10.1.2.3") == READER


def test_it_trusts_a_single_address_and_ipv6_networks(settings):
    settings.TRUSTED_PROXIES = [ip_network("192.0.2.1"), ip_network("2001:db8::/32")]
    assert address("192.0.2.1", READER) == READER
    assert address("192.0.2.2", READER) == "192.0.2.2"
    assert address("2001:db8::5", "2001:0DB9::0009, 2001:db8::7") == "2001:db9::9"


def test_it_trusts_an_ipv4_proxy_seen_on_a_dual_stack_socket(trusted):
    assert address(f"::ffff:{PROXY}", READER) == READER


@pytest.mark.parametrize(
    "forwarded_for",
    [None, "", "unknown", f"{READER}, not-an-address", "10.0.0.2, 10.0.0.3", f"{READER}:443"],
)
def test_it_falls_back_to_the_proxy_without_a_valid_reader_address(trusted, forwarded_for):
    assert address(PROXY, forwarded_for) == PROXY


def test_it_is_empty_without_a_peer_address():
    assert client_address(RequestFactory().get("/", REMOTE_ADDR="")) == ""


@pytest.fixture
def report_url(db):
    (entry,) = import_records(make_record("Can save model checkpoint."))
    return f"/errors/{entry.id}/report/"


def send_report(url: str, remote_addr: str, forwarded_for: str) -> int:
    data = {"message": "The line number is off by one.", "contact": ""}
    response = Client().post(url, data, REMOTE_ADDR=remote_addr, HTTP_X_FORWARDED_FOR=forwarded_for)
    return response.status_code


def test_the_report_limit_counts_each_reader_behind_a_trusted_proxy(trusted, report_url):
    trusted.REPORTS_PER_HOUR = 2
    assert [send_report(report_url, PROXY, READER) for _ in range(3)] == [303, 303, 429]
    assert send_report(report_url, PROXY, "198.51.100.9") == 303
    assert Report.objects.count() == 3


def test_a_forged_forwarded_for_does_not_escape_the_report_limit(trusted, report_url):
    trusted.REPORTS_PER_HOUR = 2
    codes = [send_report(report_url, "192.0.2.66", f"198.51.100.{n}") for n in range(3)]
    assert codes == [303, 303, 429]


def log_in(remote_addr: str, forwarded_for: str, password: str, username: str = "owner") -> int:
    data = {"username": username, "password": password}
    response = Client().post(
        "/admin/login/?next=/admin/",
        data,
        REMOTE_ADDR=remote_addr,
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )
    return response.status_code


@pytest.mark.django_db
def test_the_login_lockout_keys_on_the_reader_behind_a_trusted_proxy(trusted):
    trusted.AXES_FAILURE_LIMIT = 3
    make_user("owner")
    for _ in range(3):
        assert log_in(PROXY, READER, "wrong") in (200, 429)
    assert log_in(PROXY, READER, "owner-password") == 429
    assert log_in(PROXY, "198.51.100.9", "owner-password") == 302
    assert AccessLog.objects.get().ip_address == "198.51.100.9"


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_escape_the_login_lockout(trusted):
    trusted.AXES_FAILURE_LIMIT = 3
    make_user("owner")
    for n in range(3):
        assert log_in("192.0.2.66", f"198.51.100.{n}", "wrong") in (200, 429)
    assert log_in("192.0.2.66", "198.51.100.99", "owner-password") == 429


@pytest.mark.django_db
def test_the_login_lockout_counts_a_reader_behind_a_trusted_proxy_across_usernames(trusted):
    trusted.AXES_FAILURE_LIMIT = 3
    for username in ("owner", "teammate", "editor"):
        make_user(username)
        assert log_in(PROXY, READER, "wrong", username=username) in (200, 429)
    assert log_in(PROXY, READER, "owner-password") == 429
    # The proxy's own address is not what counts: another reader behind it still gets in.
    assert log_in(PROXY, "198.51.100.9", "teammate-password", username="teammate") == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {READER}
