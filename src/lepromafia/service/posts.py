"""Posts in the inboxes: Markdown rendered once per message version, mentions, edit history.

A message's text is Markdown of a small forum subset (bold, italic, strikethrough, quotes,
lists, spoilers, code, links and bare URLs), parsed by markdown-it-py with raw HTML off and
then cleaned by nh3 with an allow-list, so nothing a player types runs in a reader's
browser. Rendering depends only on the text, the game's residents (``@name`` mentions) and
the page language (the spoiler's label), so it is cached by exactly that: a message
version is rendered once per process and language, whoever reads it.

An edit (``MessageEdited``) is a new version; every earlier one stays readable beside it.
An edit belongs to its message: whoever may read the inbox's messages sees its versions
(the gate of ``GameQueries.inbox``), as a reader who joins later sees the whole thread.

``mentioned_in`` is the hook for notifications: who a posted or edited message mentions
and may read it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING, Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.container import container_plugin

from ..engine import events as ev
from ..engine.events import Event
from ..engine.inboxes import POLICY, Kind, can_read
from ..engine.state import GameState
from ..store.event_store import MessageRow
from .event_index import Events, Indexed, count_upto
from .views import MessageVersion, MessageView

if TYPE_CHECKING:
    from .queries import GameQueries
    from .service import Current

NAME = re.compile(r"[a-z0-9_][a-z0-9_.-]{0,31}", re.IGNORECASE)
"""A login after ``@`` (``service.accounts.LOGIN_PATTERN``, any case)."""

TAGS = {"p", "br", "strong", "em", "s", "del", "blockquote", "ul", "ol", "li", "a", "code",
        "pre", "details", "summary", "span"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "span": {"data-user"}}
CLASSES = {"span": {"mention"}, "details": {"spoiler"}}
SCHEMES = {"http", "https", "mailto"}
SPOILER = "\x00spoiler\x00"
"""Where the reader's word for «spoiler» goes (the rendering is per language); markdown-it
turns a typed NUL into U+FFFD, so no text can forge it."""


def _mention(state: StateInline, silent: bool) -> bool:
    """``@login`` of one of the game's residents (``env["residents"]``) becomes a mention."""
    pos = state.pos
    if state.src[pos] != "@" or (pos > 0 and (state.src[pos - 1].isalnum()
                                             or state.src[pos - 1] in "_.-@")):
        return False
    found = NAME.match(state.src, pos + 1)
    if found is None:
        return False
    name = found.group(0).rstrip(".-")
    user = name.lower()
    if user not in state.env.get("residents", ()):
        return False
    if not silent:
        token = state.push("mention", "", 0)
        token.meta = {"user": user}
        token.content = "@" + name
    state.pos = pos + 1 + len(name)
    return True


def _render_mention(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    return (f'<span class="mention" data-user="{escape(token.meta["user"])}">'
            f"{escape(token.content)}</span>")


def _spoiler(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    if token.nesting != 1:
        return "</details>\n"
    title = token.info.strip()[len("spoiler"):].strip()
    return f'<details class="spoiler"><summary>{escape(title) if title else SPOILER}</summary>\n'


SAFE_LINK = re.compile(r"^(https?:|mailto:|#|/(?!/))", re.IGNORECASE)


class _Markdown(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        """Links to http(s), mailto, a message anchor or a page of this site only."""
        return bool(SAFE_LINK.match(url.strip()))


def _parser() -> MarkdownIt:
    md = _Markdown("zero", {"html": False, "linkify": True, "breaks": True, "typographer": False})
    md.enable(["emphasis", "strikethrough", "blockquote", "list", "newline", "escape", "link",
               "autolink", "linkify", "backticks", "reference", "entity", "fence"])
    md.inline.ruler.before("emphasis", "mention", _mention)
    md.add_render_rule("mention", _render_mention)
    md.use(container_plugin, name="spoiler", render=_spoiler)
    return md


MARKDOWN = _parser()
if MARKDOWN.linkify is None:  # markdown-it-py[linkify] is a dependency
    raise ImportError("linkify-it-py is not installed")
LINKIFY = MARKDOWN.linkify
"""What markdown-it's linkify rule asks (``plain``)."""
LINK_MARKS = re.compile("|".join([re.escape(name) for name, rule in LINKIFY._compiled.items()
                                  if name and rule] + [r"\.", "localhost", "@"]), re.IGNORECASE)
"""What every link linkify finds holds (``may_link``): one of its schemas (``http:``, ``//``,
…) as its schema test spells them, or, for a link without one, the dot of ``www.``, of an
address's number or of a domain, ``localhost``, or an e-mail's ``@``."""


def may_link(text: str) -> bool:
    """``LINKIFY.test(text)``, or False sooner: each of its three tests needs a mark of
    ``LINK_MARKS`` (a schema named, matched under the same ``IGNORECASE``; the fuzzy host
    test's ``localhost`` or a dot, which all its other forms hold: ``www.``, an address's
    dotted number, a dot before a top-level domain; the fuzzy e-mail's ``@``). Most chat
    lines hold none and skip its patterns of Unicode classes (18 of a plain line's 20 µs;
    ``tests/service/test_posts_render.py`` holds the two equal on any text)."""
    return LINK_MARKS.search(text) is not None and LINKIFY.test(text)


CLEANER = nh3.Cleaner(tags=TAGS, attributes=ATTRIBUTES, allowed_classes=CLASSES,
                      url_schemes=SCHEMES, link_rel="nofollow noopener noreferrer ugc",
                      strip_comments=True)
"""Built once: ``nh3.clean`` converts its allow-lists on every call (8x the cleaning)."""


def clean(html: str) -> str:
    """nh3's allow-list: the tags above; links only to http(s), mailto or this site."""
    return CLEANER.clean(html)


NOBODY: frozenset[str] = frozenset()
"""The one empty set ``mentions`` answers for most lines (``frozenset()`` makes a new one each
time, and its cache keeps 20,000 answers: as many containers for the collector to scan)."""

_RESIDENT_SETS: dict[frozenset[str], frozenset[str]] = {}
_BY_MAPPING: dict[int, tuple[Mapping[str, Any], frozenset[str]]] = {}
RESIDENT_SETS_MAX = 1024


def resident_set(state: GameState) -> frozenset[str]:
    """The game's residents as one shared frozenset per distinct set: what ``render`` and
    ``mentions`` are keyed by. Built afresh per call, an equal set stayed alive in every
    cache key (~4 KB for 100 names, 40,000 keys), and each one's 100 references were
    scanned once by the next full collection: most of what those scanned at 50 games
    (issue 17, docs/performance.md session 11). A state's ``residents`` mapping is shared
    by every later state until a resident changes (the engine never edits one in place),
    so it is known by its identity first: no set built and hashed per post (session 34)."""
    residents = state.residents
    known = _BY_MAPPING.get(id(residents))
    if known is not None and known[0] is residents:
        return known[1]
    fresh = frozenset(residents)
    shared = _RESIDENT_SETS.get(fresh)
    if shared is None:
        if len(_RESIDENT_SETS) >= RESIDENT_SETS_MAX:
            _RESIDENT_SETS.clear()
        shared = _RESIDENT_SETS[fresh] = fresh
    if len(_BY_MAPPING) >= RESIDENT_SETS_MAX:
        _BY_MAPPING.clear()
    _BY_MAPPING[id(residents)] = (residents, shared)  # held: its id is not reused meanwhile
    return shared


@lru_cache(maxsize=20_000)
def render(text: str, residents: frozenset[str] = frozenset(), spoiler: str = "Spoiler") -> str:
    """One message version as safe HTML (cached: the same text renders once). A plain
    line — most chat — is the paragraph markdown-it and nh3 would make of it, without
    parsing it (``plain``: two thirds of a pushed message's render, issue 17)."""
    if plain(text):
        return f"<p>{text}</p>\n"
    return markdown(text, residents, spoiler)


def markdown(text: str, residents: frozenset[str] = frozenset(), spoiler: str = "Spoiler") -> str:
    """``render`` through markdown-it and nh3, whatever the text."""
    html = MARKDOWN.render(text, {"residents": residents})
    return clean(html.replace(SPOILER, escape(spoiler)))


NOT_PLAIN = re.compile(r"[*_~`<>&@\[\]\\|#]|[^\S ]|[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""What may make a line more than a paragraph of its own characters: Markdown's and the
mention's marks, entities and tags (which nh3 would write back escaped), any white space but
the plain space (line breaks, tabs, the no-break space nh3 writes as ``&nbsp;``), control
characters and lone surrogates."""


def plain(text: str) -> bool:
    """Is ``text`` one paragraph of exactly its characters, as markdown-it and nh3 render it
    (``markdown``; ``tests/service/test_posts_render.py`` compares them on any text)? Not
    if it starts with what opens a list or a spoiler (a digit, ``-``, ``+``, ``:``), with or
    after a space (markdown-it trims them), has a mark of ``NOT_PLAIN``, or holds
    something linkify would make a link of (``example.com``)."""
    return (text != "" and not text[0].isdigit() and text[0] not in "-+: " and text[-1] != " "
            and NOT_PLAIN.search(text) is None and not may_link(text))


@lru_cache(maxsize=20_000)
def mentions(text: str, residents: frozenset[str]) -> frozenset[str]:
    """The residents a text mentions, as the renderer finds them: not inside code, and not
    inside a quote (quoting a mention does not mention him again)."""
    if "@" not in text:  # most posts: no Markdown parse (one per post, in the writer lane)
        return NOBODY
    found: set[str] = set()
    depth = 0
    for token in MARKDOWN.parse(text, {"residents": residents}):
        depth += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if depth == 0 and token.type == "inline":
            found |= {child.meta["user"] for child in token.children or ()
                      if child.type == "mention"}
    return frozenset(found) if found else NOBODY


def mentioned_in(state: GameState, event: Event) -> frozenset[str]:
    """Notifications' hook: who a ``MessagePosted`` or ``MessageEdited`` mentions and may
    read it, its author aside (a mention never reaches anyone outside the inbox)."""
    if not isinstance(event, ev.MessagePosted | ev.MessageEdited):
        return NOBODY
    named = mentions(event.text, resident_set(state))
    return frozenset(u for u in named if u != event.author and can_read(state, event.inbox, u))


@dataclass(frozen=True)
class Version:
    text: str
    at: str
    html: str


@dataclass(frozen=True)
class Post:
    """A message as the page shows it: its latest version, and every earlier one."""

    number: int
    author: str
    at: str
    text: str
    html: str
    mentions: frozenset[str]
    versions: tuple[Version, ...] = ()
    """Earlier versions, the original first; empty if never edited."""
    edited_at: str | None = None


def edits_of(events: Indexed, inbox: str) -> dict[int, list[ev.MessageEdited]]:
    """Message number -> its edits in order, for one inbox (the caller has checked that the
    viewer may read the inbox: an edit is shown wherever its message is). From the event
    index, only that inbox's edits are looked at (issue 17: not every event of the game)."""
    if isinstance(events, Events):
        return events.edits(inbox)
    out: dict[int, list[ev.MessageEdited]] = {}
    for _seq, e in events:
        if isinstance(e, ev.MessageEdited) and e.inbox == inbox:
            out.setdefault(e.number, []).append(e)
    return out


def with_edits(messages: Sequence[MessageView],
               edits: dict[int, list[ev.MessageEdited]]) -> tuple[MessageView, ...]:
    """Each message as last edited, with its earlier versions. An edit applies only to a
    message by the same author (a guard should a numbering ever disagree with the engine's)."""
    out = []
    for m in messages:
        own = [e for e in edits.get(m.seq, ()) if e.author == m.author]
        if not own:
            out.append(m)
            continue
        earlier = (MessageVersion(m.text, m.at),
                   *(MessageVersion(e.text, e.at.isoformat()) for e in own[:-1]))
        out.append(replace(m, text=own[-1].text, edited_at=own[-1].at.isoformat(),
                           versions=earlier))
    return tuple(out)


def posts_of(messages: Sequence[MessageView], residents: frozenset[str], spoiler: str) -> list[Post]:
    """The thread's posts, every version rendered (once: ``render`` is cached)."""
    return [Post(number=m.seq, author=m.author, at=m.at, text=m.text,
                 html=render(m.text, residents, spoiler), mentions=mentions(m.text, residents),
                 versions=tuple(Version(v.text, v.at, render(v.text, residents, spoiler))
                                for v in m.versions),
                 edited_at=m.edited_at)
            for m in messages]


@dataclass(frozen=True)
class Mention:
    inbox: str
    post: Post


async def mentions_of(queries: GameQueries, game: Current, viewer: str,
                      spoiler: str) -> list[Mention]:
    """Every message (as last edited) that mentions ``viewer`` in an inbox he may read,
    newest first: the in-app list a mention reaches him by (his own messages aside). Only
    the messages with an ``@`` in one of their versions are read (the index's ledger and
    edits; issue 17: not every message of every inbox of the game)."""
    s = game.state
    residents = resident_set(s)
    if viewer not in residents:
        return []
    needle = "@" + viewer
    game_id, version = game.meta.game_id, game.version
    events = await queries.events(game)
    numbers = await queries.index.messages(game_id, version)
    candidates: dict[str, set[int]] = {}
    for inbox, seqs in list((await queries.index.at_signs(game_id, version)).items()):
        candidates.setdefault(inbox, set()).update(seq for seq in seqs if seq <= version)
    for _seq, e in every_edit(events):  # an @ added by an edit
        found = numbers.get(e.inbox)
        if "@" in e.text and found is not None and 1 <= e.number <= count_upto(found, version):
            candidates.setdefault(e.inbox, set()).add(found[e.number - 1])
    readable = {inbox: seqs for inbox, seqs in candidates.items()
                if seqs and inbox in s.inboxes and not POLICY[Kind(s.inboxes[inbox].kind)].keywords_only
                and can_read(s, inbox, viewer)}
    if not readable:
        return []
    async with queries.service.store.reading() as tx:
        rows = await tx.messages_by_seq(game_id, [seq for seqs in readable.values() for seq in seqs])
    by_inbox: dict[str, list[MessageRow]] = {}
    for row in rows:
        by_inbox.setdefault(row.inbox, []).append(row)
    out = []
    for inbox, found_rows in by_inbox.items():
        order = numbers[inbox]  # a message's number in its inbox: its place among them
        views = [MessageView(bisect_left(order, r.seq) + 1, r.author, r.text, r.at) for r in found_rows]
        maybe = [m for m in with_edits(views, edits_of(events, inbox)) if needle in m.text.lower()]
        out += [Mention(inbox, post) for post in posts_of(maybe, residents, spoiler)
                if viewer in post.mentions and post.author != viewer]
    out.sort(key=lambda m: m.post.edited_at or m.post.at, reverse=True)
    return out


def every_edit(events: Indexed) -> list[tuple[int, ev.MessageEdited]]:
    """Every ``MessageEdited`` of the game (by class from the index), for the caller to gate
    by its inbox (an edit is read wherever its message is)."""
    if isinstance(events, Events):
        return [(seq, e) for seq, e in events.of(ev.MessageEdited) if isinstance(e, ev.MessageEdited)]
    return [(seq, e) for seq, e in events if isinstance(e, ev.MessageEdited)]
