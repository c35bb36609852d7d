"""Each thread message rendered once per viewer-view, not once per request (issue 17).

``live.js`` re-fetches an inbox region after events, and the region renders up to 500
messages through ``partials/message_item.html``: most of a region GET's CPU. A message's
item is a pure function of a few inputs, so it is cached by exactly those:

- the message as ``discussion.thread`` built it for this viewer (number, author and label,
  text, rendered Markdown, every earlier version, time and edit time, host/keyword flags)
  and the bits that are the viewer's own (mine, editable, mentions-me);
- whether it is new for the viewer (``seq > read_upto``), whether he may post (the quote
  and edit controls), the language, the game, the inbox and the message length limit.

The item is rendered from those inputs alone, in a strict environment (an undefined name
is an error), so a later template edit cannot make it depend on anything the key lacks;
two viewers whose views differ in any way never share an entry.

The edit form carries a per-request, one-time CSRF token: the cached HTML holds a
placeholder instead, and each use swaps in a fresh token (and its nonce as the command id)
for every form. A placeholder anywhere but in the exact hidden-input pair a template writes
(user text cannot write ``<input``) means the item is not cached at all.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import Environment, StrictUndefined, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

TEMPLATE = "partials/message_item.html"
PLACEHOLDER = "csrf-placeholder.0.0"
"""What ``csrf_token()`` answers while an item is rendered for the cache."""
PLACEHOLDER_ID = PLACEHOLDER.split(".", 1)[0]
FIELDS = ('<input type="hidden" name="csrf_token" value="{token}">'
          '<input type="hidden" name="command_id" value="{nonce}">')
"""``csrf_field()`` of components/macros.html, as it renders."""
MARKER = FIELDS.format(token=PLACEHOLDER, nonce=PLACEHOLDER_ID)


FIELDS_OF_ITEM = frozenset({"seq", "author", "label", "text", "html", "at", "host", "keyword", "mine",
                            "editable", "mentions_me", "mentions", "edited_at", "versions"})
"""What ``discussion.thread`` puts in an item, each of them in the key; an item with any
other field is rendered uncached (the key would not cover it)."""


def item_key(m: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Every field of the item, flat (hashing and comparing it is most of a hit's cost)."""
    if m.keys() != FIELDS_OF_ITEM or any(v.keys() != {"html", "at"} for v in m["versions"]):
        return None
    return (m["seq"], m["author"], m["label"], m["text"], str(m["html"]), m["at"], bool(m["host"]),
            bool(m["keyword"]), bool(m["mine"]), bool(m["editable"]), bool(m["mentions_me"]),
            tuple(m["mentions"]), m["edited_at"],
            tuple((str(v["html"]), v["at"]) for v in m["versions"]))


def with_tokens(parts: tuple[str, ...], fresh: Callable[[], str]) -> str:
    """The cached HTML (split at its forms' placeholders) with a fresh one-time token in
    each of its forms."""
    if len(parts) == 1:
        return parts[0]
    out = [parts[0]]
    for part in parts[1:]:
        token = fresh()
        out.append(FIELDS.format(token=token, nonce=token.split(".", 1)[0]))
        out.append(part)
    return "".join(out)


class ItemCache:
    """An LRU of rendered thread items, per process, bounded by count and by characters
    (a key holds the message's text and HTML, the entry its rendered item: a long message
    weighs more than a short one)."""

    def __init__(self, maxsize: int = 20000, max_chars: int = 32_000_000) -> None:
        self.maxsize = maxsize
        self.max_chars = max_chars
        self.chars = 0
        self.enabled = True
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[tuple[Any, ...], tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self._strict: dict[int, Environment] = {}

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = self.chars = 0

    def __len__(self) -> int:
        return len(self._items)

    def strict(self, env: Environment) -> Environment:
        found = self._strict.get(id(env))
        if found is None:
            found = self._strict[id(env)] = env.overlay(undefined=StrictUndefined)
        return found

    def item(self, ctx: Context, m: Mapping[str, Any]) -> Markup:
        """One message's ``<li>`` for the viewer the page is rendered for."""
        game, inbox = ctx["game"], ctx["inbox"]
        inputs = {
            "lang": ctx["lang"],
            "game": {"id": game["id"] if isinstance(game, Mapping) else game.id},
            "inbox": {"id": inbox["id"]},
            "can_post": bool(ctx["can_post"]),
            "max_length": ctx.get("max_length"),
            "open_edit": bool(ctx.get("open_edit", False)),
        }
        new = m["seq"] > ctx["read_upto"]
        fresh: Callable[[], str] = ctx["csrf_token"]
        found = item_key(m) if self.enabled else None
        if found is None:
            return Markup(self._render(ctx, m, inputs, new, fresh))  # noqa: S704 - autoescaped template
        key = (inputs["lang"], inputs["game"]["id"], inputs["inbox"]["id"], inputs["can_post"],
               inputs["max_length"], inputs["open_edit"], new, *found)
        with self._lock:
            parts = self._items.get(key)
            if parts is not None:
                self._items.move_to_end(key)
                self.hits += 1
        if parts is None:
            html = self._render(ctx, m, inputs, new, lambda: PLACEHOLDER)
            if html.count(PLACEHOLDER_ID) != 2 * html.count(MARKER):  # a form we do not know
                return Markup(self._render(ctx, m, inputs, new, fresh))  # noqa: S704
            parts = tuple(html.split(MARKER))
            with self._lock:
                self.misses += 1
                if key not in self._items:
                    self._items[key] = parts
                    self.chars += _weight(key, parts)
                while len(self._items) > self.maxsize or (self.chars > self.max_chars
                                                          and len(self._items) > 1):
                    old_key, old = self._items.popitem(last=False)
                    self.chars -= _weight(old_key, old)
        return Markup(with_tokens(parts, fresh))  # noqa: S704 - autoescaped template

    def _render(self, ctx: Context, m: Mapping[str, Any], inputs: dict[str, Any], new: bool,
                csrf: Callable[[], str]) -> str:
        env = self.strict(ctx.environment)
        return env.get_template(TEMPLATE).render(
            inputs, m=m, neutral=False, read_upto=m["seq"] - 1 if new else m["seq"],
            _=ctx["_"], gettext=ctx["gettext"], ngettext=ctx["ngettext"], local=ctx["local"],
            csrf_token=csrf)


def _weight(key: tuple[Any, ...], parts: tuple[str, ...]) -> int:
    return sum(len(p) for p in parts) + sum(len(k) for k in key if isinstance(k, str))


CACHE = ItemCache()


@pass_context
def thread_item(ctx: Context, m: Mapping[str, Any]) -> Markup:
    """``{{ thread_item(m) }}`` in partials/messages.html."""
    return CACHE.item(ctx, m)
