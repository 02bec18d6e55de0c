"""Waiting, in tests, for something another process or thread does."""

import time


def wait_for(condition, timeout: float, *, interval: float = 0.01) -> bool:
    """Poll ``condition`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False
