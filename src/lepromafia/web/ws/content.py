"""What an event shows on a page, pushed in its frame: rendered once per audience and language.

A new or edited message (``MessagePosted``, ``MessageEdited``) travels to each reader's
socket with its thread item already rendered (``partials/message_item.html``, neutral:
the Markdown through ``service.posts``, the author's label, the time, the message's number
in its inbox, ``data-author`` and ``data-mentions``, no viewer's own classes or forms),
so ``live.js`` inserts it instead of re-fetching the inbox region: for one chat message
in a city of 20, one render instead of 20 requests (issue 17, the first lead).

The fragment depends only on the event and the language (every reader of an inbox sees
the same messages, numbered alike), so it is cached per (game, seq, language); the frame
that carries it is built by ``Frames`` from ``service.outbound.audience_item``, only for a
viewer the audience filter (``may_see``) admits.

``Frames`` encodes each event's frame once per (event, content) and splices each viewer's
position into it: the audience filter (``service.outbound``) still decides per viewer whether
he gets the event at all, but the bytes of those it admits differ only by their ``seq``
(issue 17: encode once per audience, not once per client).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from markupsafe import Markup, escape

from ...engine import events as ev
from ...engine.events import Event
from ...engine.inboxes import POLICY, Kind
from ...engine.state import GameState, Inbox
from ...service.outbound import audience_item, may_see
from ...service.posts import mentions, posts_of, resident_set
from ...service.posts import render as render_post
from ...service.views import MessageView
from ..i18n import ntranslate, translate
from ..pages.discussion import author_label  # the pages' one spelling of a label
from ..pages.render import env, local
from .protocol import event_text
from .transport import frame_header

PUSHED: tuple[type[ev.MessagePosted], type[ev.MessageEdited]] = (ev.MessagePosted, ev.MessageEdited)
"""The events whose page content rides in the frame."""
TEMPLATE = "partials/message_item.html"
NOT_READY = "\0not rendered"
"""``PushedContent.rendered``'s default for a fragment not rendered (yet): compared by
identity (``is``), so no fragment is ever taken for it."""


class PushedContent:
    """The per-process cache of pushed fragments: (game, global seq, language) -> HTML, or
    None where the event has none (the client then re-fetches its region, coalesced)."""

    def __init__(self, maxsize: int = 4096) -> None:
        self.maxsize = maxsize
        self.renders = 0
        """How many fragments were rendered (a test counts one per audience and language)."""
        self._cache: OrderedDict[tuple[str, int, str], asyncio.Future[str | None]] = OrderedDict()
        self.rendered: dict[tuple[str, int, str], str | None] = {}
        """The fragments whose render is done, beside their futures in ``_cache``: what a
        delivery written as the event is published looks up (``NOT_READY`` if absent), one
        dict lookup for each of an event's thousand readers (issue 17)."""
        self.frames = Frames()
        """The encoded event frames (one cache per process, beside the fragments)."""
        self.langs: dict[str, int] = {}
        """Connected sockets per language: a published message is rendered in these at once."""
        self.web: Any = None
        self._skeletons: dict[tuple[str, bool, bool], Skeleton] = {}

    def watch(self, web: Any) -> None:
        """Render each published message for the connected languages as it is published
        (``Broker.observers``, before any subscriber wakes): the render is then usually
        done when the first receiving socket asks, and none of them waits on it."""
        self.web = web
        web.service.broker.observers.append(self.observe)

    def observe(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        if not self.langs or not self.web.service.broker.has_subscribers(game_id):
            return
        for seq, event in events:
            if isinstance(event, PUSHED):
                for lang, sockets in self.langs.items():
                    if sockets > 0:
                        self._start(self.web, game_id, seq, event, lang)

    def joined(self, lang: str) -> None:
        self.langs[lang] = self.langs.get(lang, 0) + 1

    def left(self, lang: str) -> None:
        self.langs[lang] = self.langs.get(lang, 0) - 1

    def ready(self, game_id: str, seq: int, lang: str) -> tuple[bool, str | None]:
        """(True, the fragment) if it is rendered already (no await: one event's thousand
        receivers after the first take it from here), else (False, None)."""
        html = self.rendered.get((game_id, seq, lang), NOT_READY)
        return (False, None) if html is NOT_READY else (True, html)

    async def fragment(self, web: Any, game_id: str, seq: int, event: Event, lang: str) -> str | None:
        if not isinstance(event, PUSHED):
            return None
        key = (game_id, seq, lang)
        found = self._start(web, game_id, seq, event, lang)
        self._cache.move_to_end(key)
        try:
            return await asyncio.shield(found)
        except Exception:  # no fragment: the client re-fetches its region
            self._cache.pop(key, None)
            self.rendered.pop(key, None)
            return None

    def _start(self, web: Any, game_id: str, seq: int, event: Event, lang: str) -> asyncio.Future[str | None]:
        """The render of one fragment, started once (the first asker renders; the others
        await the same render)."""
        key = (game_id, seq, lang)
        found = self._cache.get(key)
        if found is None:
            done, html = self._render_now(web, game_id, seq, event, lang)
            if done:
                found = asyncio.get_running_loop().create_future()
                found.set_result(html)
                self.rendered[key] = html
            else:
                found = asyncio.ensure_future(self._render(web, game_id, seq, event, lang))
                found.add_done_callback(lambda f: self._rendered(key, f))
            self._cache[key] = found
            while len(self._cache) > self.maxsize:
                self.rendered.pop(self._cache.popitem(last=False)[0], None)
        return found

    def _rendered(self, key: tuple[str, int, str], found: asyncio.Future[str | None]) -> None:
        """A render that had to read first is done: its fragment joins ``rendered`` (a failed
        or cancelled one does not, and nobody need ask for its exception)."""
        if not found.cancelled() and found.exception() is None and key in self._cache:
            self.rendered[key] = found.result()

    def _render_now(self, web: Any, game_id: str, seq: int, event: Event,
                    lang: str) -> tuple[bool, str | None]:
        """A new message rendered at once from what the process holds in memory (the game's
        state including it, its number in its inbox): (True, the fragment), or (False,
        None) when something must be read first (``_render`` then does it, awaited). As
        the event is published, this is what lets the fan-out write every reader's frame
        without waiting (``web.ws.endpoint``)."""
        if not isinstance(event, ev.MessagePosted):
            return False, None
        state = web.service.held_state(game_id, seq)
        number = web.queries.streams.known_message_number(game_id, seq)
        if state is None or number is None:
            return False, None
        inbox = state.inboxes.get(event.inbox)
        if inbox is None:
            return True, None
        return True, self._posted_html(state, inbox, number, event, lang)

    async def _render(self, web: Any, game_id: str, seq: int, event: Event, lang: str) -> str | None:
        state = await web.queries.state(game_id)
        inbox = state.inboxes.get(event.inbox)  # type: ignore[attr-defined]
        if inbox is None:
            return None
        if isinstance(event, ev.MessagePosted):
            number = await web.queries.streams.message_number(game_id, seq)
            if number is None:
                return None
            view = MessageView(number, event.author, event.text, event.at.isoformat())
        else:
            assert isinstance(event, ev.MessageEdited)
            found = await web.queries.message(game_id, event.inbox, event.author, event.number)
            if found is None:
                return None
            view = found
        return self._html(state, inbox, view, lang)

    def _posted_html(self, state: GameState, inbox: Inbox, number: int, event: ev.MessagePosted,
                     lang: str) -> str:
        """``_html`` of a new message (never edited), from the template's skeleton for its
        language and kind (``Skeleton``): the same bytes as a full render of the template
        (``tests/web/test_pushed_skeleton.py``), at a fraction of its cost (issue 17)."""
        residents = resident_set(state)
        keyword = POLICY[Kind(inbox.kind)].keywords_only
        skeleton = self._skeleton(lang, event.author in state.hosts(), keyword)
        self.renders += 1
        return skeleton.fill(
            seq=str(number), label=escape(author_label(lang, event.author)), text=escape(event.text),
            author=escape(event.author), at=escape(local(event.at)),
            mentions=escape(" ".join(sorted(mentions(event.text, residents)))),
            html=render_post(event.text, residents, translate(lang, "Spoiler")))

    def _skeleton(self, lang: str, host: bool, keyword: bool) -> Skeleton:
        key = (lang, host, keyword)
        found = self._skeletons.get(key)
        if found is None:
            item = _Item(seq=SLOT["seq"], author=SLOT["author"], label=SLOT["label"],  # type: ignore[arg-type]
                         text=SLOT["text"], html=Markup(SLOT["html"]), at=SLOT["at"],  # type: ignore[arg-type]  # noqa: S704
                         host=host, keyword=keyword, mentions=[SLOT["mentions"]], edited_at=None,
                         versions=[])
            found = self._skeletons[key] = Skeleton.parse(self._template(item, lang, lambda _at: SLOT["at"]))
        return found

    def _html(self, state: GameState, inbox: Inbox, view: MessageView, lang: str) -> str:
        post = posts_of([view], resident_set(state), translate(lang, "Spoiler"))[0]
        m = _Item(
            seq=post.number, author=post.author, label=author_label(lang, post.author),
            text=post.text, html=Markup(post.html),  # noqa: S704 - nh3-cleaned (posts.clean)
            at=datetime.fromisoformat(post.at), host=post.author in state.hosts(),
            keyword=POLICY[Kind(inbox.kind)].keywords_only, mentions=sorted(post.mentions),
            edited_at=datetime.fromisoformat(post.edited_at) if post.edited_at else None,
            versions=[{"html": Markup(v.html), "at": datetime.fromisoformat(v.at)}  # noqa: S704
                      for v in post.versions],
        )
        self.renders += 1
        return self._template(m, lang, local)

    @staticmethod
    def _template(m: _Item, lang: str, local: Any) -> str:
        return env.get_template(TEMPLATE).render(
            m=m, neutral=True, read_upto=0, can_post=False, lang=lang, local=local,
            _=lambda msgid, **f: translate(lang, msgid, **f),
            ngettext=lambda s, p, n, **f: ntranslate(lang, s, p, n, **f)).strip()


SLOT = {name: f"\0{name}\0" for name in ("seq", "label", "text", "author", "at", "mentions", "html")}
"""The markers a skeleton is rendered with, one per field of a new message: NUL never
occurs in the template's own text, and escaping leaves it as it is."""
_SLOTS = re.compile("\0([a-z]+)\0")


class Skeleton(NamedTuple):
    """The neutral item of a new message in one language, for an author host or not, in a
    keyword inbox or not, rendered once with a marker in each field (``SLOT``): a message's
    item is the template's text around the markers with its escaped fields put in, as
    ``Frames`` puts a position into an encoded frame. What the template decides by the
    message (an edit, earlier versions) is not in a new message; edits render in full."""

    layout: str
    """The skeleton as a ``str.format`` layout: its own braces doubled, a field's marker
    its ``{name}``."""

    @classmethod
    def parse(cls, rendered: str) -> Skeleton:
        pieces = _SLOTS.split(rendered)
        layout = []
        for i, piece in enumerate(pieces):
            if i % 2:
                assert piece in SLOT, piece
                layout.append("{" + piece + "}")
            else:
                layout.append(piece.replace("{", "{{").replace("}", "}}"))
        assert "\0" not in "".join(pieces[::2]), "a marker the template changed"
        return cls("".join(layout))

    def fill(self, **fields: str) -> str:
        return self.layout.format_map(fields)


class _Item(NamedTuple):
    """A pushed message as ``partials/message_item.html`` reads it (``m.seq``, …): the
    template's fields as attributes, where a dict's keys were each looked up as an
    attribute first, raising and catching an ``AttributeError`` per field (issue 17)."""

    seq: int
    author: str
    label: str
    text: str
    html: Markup
    at: datetime
    host: bool
    keyword: bool
    mentions: list[str]
    edited_at: datetime | None
    versions: list[dict[str, Any]]


SEQ = ',"seq":0'
"""Where the position goes in a frame encoded with ``seq`` 0: ``,"seq":`` cannot occur
inside a JSON string (a quote in one is always escaped), so its first occurrence, right
after the game's id, is the field."""


class Frames:
    """Event frames encoded once per (game, global seq, content): a viewer's frame is the
    shared encoding with his position spliced in, byte for byte what
    ``from_payload(stream_item(…)).model_dump_json()`` gives him (``tests/web/test_ws_frames.py``).
    ``content`` is the fragment of one language (or None), so frames of different languages
    or with and without content are different entries."""

    def __init__(self, maxsize: int = 1024) -> None:
        self.maxsize = maxsize
        self.encodings = 0
        """How many frames were encoded (a test counts one per event and content)."""
        self._parts: dict[tuple[str, int, str | None], _Parts] = {}

    def frame(self, game_id: str, seq: int, event: Event, viewer: str | None, position: int,
              content: str | None = None) -> str | None:
        """The frame of ``event`` (global ``seq``) at the viewer's ``position``; None for a
        viewer the audience filter does not admit (he gets nothing of it)."""
        parts = self._for(game_id, seq, event, viewer, content)
        return None if parts is None else f"{parts.head}{position}{parts.tail}"

    def wire(self, game_id: str, seq: int, event: Event, viewer: str | None, position: int,
             content: str | None = None) -> bytes | None:
        """``frame``'s text as the WebSocket frame that carries it (``transport.text_frame``
        of its UTF-8): the parts are encoded once per event, so a delivery copies bytes
        once instead of formatting, encoding and framing the whole text (issue 17)."""
        parts = self._for(game_id, seq, event, viewer, content)
        if parts is None:
            return None
        at = b"%d" % position
        return b"".join((frame_header(parts.size + len(at)), parts.head_bytes, at, parts.tail_bytes))

    def _for(self, game_id: str, seq: int, event: Event, viewer: str | None,
             content: str | None) -> _Parts | None:
        """The event's shared encoding, if the audience filter admits the viewer."""
        if not may_see(event, viewer):
            return None
        return self._parts.get((game_id, seq, content)) or self._add(game_id, seq, event, content)

    def _add(self, game_id: str, seq: int, event: Event, content: str | None) -> _Parts:
        parts = self._parts[(game_id, seq, content)] = self._encode(game_id, event, content)
        if len(self._parts) > self.maxsize:  # oldest first: a delivery is over in seconds
            del self._parts[next(iter(self._parts))]
        return parts

    def _encode(self, game_id: str, event: Event, content: str | None) -> _Parts:
        self.encodings += 1
        text = event_text(audience_item(game_id, event, content))
        at = text.index(SEQ)
        head, tail = text[:at + len(SEQ) - 1], text[at + len(SEQ):]
        head_bytes, tail_bytes = head.encode(), tail.encode()
        return _Parts(head, tail, head_bytes, tail_bytes, len(head_bytes) + len(tail_bytes))


class _Parts(NamedTuple):
    """A frame's text before and after the viewer's position, as text and as UTF-8."""

    head: str
    tail: str
    head_bytes: bytes
    tail_bytes: bytes
    size: int
    """Bytes of the two: the frame's payload is this and the position's digits."""


def pushed_content(web: Any) -> PushedContent:
    """The process's one cache (made on first use, like the admission gate)."""
    if web.pushed is None:
        web.pushed = PushedContent()
        web.pushed.watch(web)
    found: PushedContent = web.pushed
    return found
