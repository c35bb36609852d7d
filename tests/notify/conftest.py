"""The browser tests' Chromium and screenshot folder, for tests/notify/test_browser.py."""

from ..browser.conftest import browser, shots  # noqa: F401  (fixtures)
