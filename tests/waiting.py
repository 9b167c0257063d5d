"""Polling for a condition another process brings about (a file written, a worker's state): never a fixed sleep."""

import time


def wait_until(condition, timeout: float, what: str):
    """``condition()``'s first true value, polled every 50 ms; AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
