"""A writer lane's hot statements on SQLite, run on the transaction's own ``sqlite3``
connection: compiled once per process by SQLAlchemy, then executed without its
per-execution machinery (the cache key, the execution context, the parameter and result
processing, the greenlet hop). A chat line's transaction is a handful of such statements;
through SQLAlchemy each cost 0.1–0.45 ms of CPU against ~0.03 ms in SQLite (issue 17,
docs/performance.md, session 23).

Only what SQLAlchemy would send unchanged goes this way: a statement whose compilation
asks for a column default computed in Python falls back (``None``), and each bind value
passes through its type's bind processor as SQLAlchemy would. The transaction's
``BEGIN IMMEDIATE`` and ``COMMIT`` are the store's, on the same connection
(``event_store._HeldWriter``), so a statement here is part of it like any other.
"""

from __future__ import annotations

import functools
import operator
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from .sqlite_inline import InlineConnection

_DIALECT = sqlite.dialect()


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement's SQL, and how a row (a mapping by bind name) becomes its parameters."""

    sql: str
    parameters: Callable[[Mapping[str, Any]], tuple[Any, ...]]


def _builder(order: tuple[str, ...], processors: tuple[Callable[[Any], Any] | None, ...],
             fixed: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The row → parameters function: a plain ``itemgetter`` when no value needs a
    processor or a fixed value (most of the lane's statements)."""
    if not fixed and not any(processors):
        if len(order) == 1:
            only = order[0]
            return lambda row: (row[only],)
        return operator.itemgetter(*order) if order else (lambda row: ())

    def build(row: Mapping[str, Any]) -> tuple[Any, ...]:
        values = (row[name] if name in row else fixed[name] for name in order)
        return tuple(value if process is None or value is None else process(value)
                     for value, process in zip(values, processors, strict=True))
    return build


def connection(conn: AsyncConnection) -> sqlite3.Connection | None:
    """The ``sqlite3`` connection under a SQLAlchemy connection on our inline driver; None
    on another (PostgreSQL, aiosqlite for ``:memory:``)."""
    driver = conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]
    return driver.raw if isinstance(driver, InlineConnection) else None


def _compile(statement: ClauseElement, keys: Sequence[str] | None,
             postcompile: bool = False) -> Prepared | None:
    options: dict[str, Any] = {"render_postcompile": True} if postcompile else {}
    compiled = cast(SQLCompiler, statement.compile(
        dialect=_DIALECT, column_keys=list(keys) if keys is not None else None, compile_kwargs=options))
    if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
        return None  # a column default SQLAlchemy computes per row
    order = tuple(compiled.positiontup or ())
    binds = [compiled.binds[name] if name in compiled.binds else compiled.binds.get(name.rsplit("_", 1)[0])
             for name in order]
    processors = tuple(bind.type.dialect_impl(_DIALECT).bind_processor(_DIALECT) if bind is not None else None
                       for bind in binds)
    fixed = {name: bind.value for name, bind in zip(order, binds, strict=True)
             if keys is not None and name not in keys and bind is not None}
    return Prepared(compiled.string, _builder(order, processors, fixed))


@functools.lru_cache(maxsize=256)
def for_rows(statement: ClauseElement, keys: tuple[str, ...]) -> Prepared | None:
    """``statement`` (an insert or upsert built once) compiled for rows with ``keys``."""
    return _compile(statement, keys)


@functools.lru_cache(maxsize=64)
def for_params(statement: ClauseElement) -> Prepared | None:
    """``statement`` with named binds only (no column keys)."""
    return _compile(statement, None)


@functools.lru_cache(maxsize=512)
def expanded(statement: ClauseElement, sizes: tuple[tuple[str, int], ...]) -> Prepared | None:
    """``statement`` with its expanding binds rendered for lists of these sizes: each
    element is the bind ``name_1``, ``name_2``… (``expand`` names the values so). The
    caller pads its lists to a few sizes (``event_store._padded``)."""
    dummy = {name: [""] * size for name, size in sizes}
    return _compile(statement.params(dummy), None, postcompile=True)


def expand(lists: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """Named values for an ``expanded`` statement's binds."""
    return {f"{name}_{i}": value for name, values in lists.items()
            for i, value in enumerate(values, start=1)}


def execute(raw: sqlite3.Connection, compiled: Prepared, row: Mapping[str, Any]) -> sqlite3.Cursor:
    return raw.execute(compiled.sql, compiled.parameters(row))


def execute_many(raw: sqlite3.Connection, compiled: Prepared, rows: Sequence[Mapping[str, Any]]) -> None:
    raw.executemany(compiled.sql, map(compiled.parameters, rows))


def mappings(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    """The cursor's rows as dicts by column name (as ``row._mapping`` gives them)."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
