"""live.js's decisions for pushed messages and coalesced re-fetches, run by node (issue 17).

A thread on Ana's page shows messages 1..3. Boris's message 4 arrives pushed: appended. The
echo of a message already shown is skipped; a number past the next one means the page
missed one: the region is re-fetched once. An edit replaces a shown item. Ana's own
message is "mine"; Boris's that mentions @ana marks her. A region re-fetches at most once
per window, trailing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

LIVE_JS = Path(__file__).parents[2] / "src/lepromafia/web/static/js/live.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node runs live.js")  # Debian's nodejs


def call(name: str, cases: list[list[Any]]) -> list[Any]:
    script = (f"const m = require({json.dumps(str(LIVE_JS))});"
              f"const cases = {json.dumps(cases)};"
              f"console.log(JSON.stringify(cases.map(c => m.{name}(...c))));")
    out = subprocess.run([NODE or "node", "-e", script], capture_output=True, text=True, check=True)
    found: list[Any] = json.loads(out.stdout)
    return found


def test_a_pushed_message_is_appended_only_where_the_thread_is_current() -> None:
    assert call("placement", [
        [[1, 2, 3], "MessagePosted", 4],   # the next one
        [[1, 2, 3], "MessagePosted", 3],   # the echo of one's own post, already drawn
        [[1, 2, 3], "MessagePosted", 6],   # 4 and 5 missed: re-fetch once
        [[], "MessagePosted", 1],          # the first message of an empty inbox
        [[], "MessagePosted", 2],
        [[1, 2, 3], "MessageEdited", 2],   # an edit of a shown message
        [[1, 2, 3], "MessageEdited", 7],   # an edit of one the page does not show
    ]) == ["append", "skip", "refetch", "append", "refetch", "replace", "refetch"]


def test_the_viewer_s_own_marks_come_from_data_author_and_data_mentions() -> None:
    assert call("personal", [
        ["ana", "", "ana"],            # her own message
        ["boris", "ana vera", "ana"],  # Boris mentions her
        ["boris", "vera", "ana"],      # Boris mentions someone else
        ["ana", "ana", "ana"],         # she mentions herself: hers, no flag
        ["boris", "ana", ""],          # an anonymous reader: nothing is his
    ]) == [{"mine": True, "mentionsMe": False}, {"mine": False, "mentionsMe": True},
           {"mine": False, "mentionsMe": False}, {"mine": True, "mentionsMe": False},
           {"mine": False, "mentionsMe": False}]


def test_a_region_re_fetches_at_most_once_per_window_trailing() -> None:
    # fetchDelay(now, lastFetch, debounce, window), milliseconds
    assert call("fetchDelay", [
        [10_000, 0, 150, 2000],      # never fetched: the debounce
        [10_000, 9_500, 150, 2000],  # fetched 0.5 s ago: wait for the window's end
        [10_000, 7_000, 150, 2000],  # fetched 3 s ago: the debounce
    ]) == [150, 1500, 150]


def test_a_read_report_goes_on_the_socket_for_an_inbox_s_marker_url() -> None:
    """The marker URL of an inbox (its id may hold a slash or Cyrillic, percent-encoded)
    becomes the socket's ``read`` report; any other URL stays with the POST."""
    assert call("readReport", [
        ["/games/g1/inboxes/city-1/read", 7],
        ["/games/g1/inboxes/%D0%9B%D0%B5%D0%BF%D1%80%D0%BE/2/read", 3],
        ["/games/g1/inboxes/city-1/part", 7],
        ["", 1],
    ]) == [{"type": "read", "game": "g1", "inbox": "city-1", "upto": 7},
           {"type": "read", "game": "g1", "inbox": "Лепро/2", "upto": 3}, None, None]
