import pytest

from errorkb.lookup import lookups
from tests.builders import load_demo


@pytest.fixture
def demo(db):
    load_demo()


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
