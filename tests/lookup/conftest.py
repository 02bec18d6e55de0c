import pytest

from errorkb.lookup import lookups
from tests.builders import load_demo, load_site_index


@pytest.fixture
def demo(db):
    load_demo()


@pytest.fixture
def burn_releases(db):
    """The shipped scan of burn's release tags: its releases and every error site."""
    load_site_index()


@pytest.fixture(autouse=True)
def no_limit(settings):
    """Tests look up many times from one address; the limit's own tests lower it again."""
    settings.LOOKUPS_PER_MINUTE = 10_000


@pytest.fixture(autouse=True)
def fresh_index():
    """Each test starts without a built index, as a fresh web process does."""
    lookups._index = None
    yield
    lookups._index = None
