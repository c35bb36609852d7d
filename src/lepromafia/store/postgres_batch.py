"""PostgreSQL: a writer lane's whole batch written in one statement (issue 17, session 24).

A batch's writes were one statement each: the games' moves, then the events, commands,
log leaves, outbox rows and read-model changes, a round trip to the server each (a chat
line: 9 with ``BEGIN``, the lock and ``COMMIT``). Under load every round trip waits for the
event loop's next turn, and at 200 games a transaction spent most of its life idle in the
server waiting for the next statement (``pg_stat_activity``: *idle in transaction*). Here
they are one statement of data-modifying CTEs: each table's rows travel as one array per
column and are ``unnest``-ed by the server; the games' moves return the games they moved,
as ``_MOVE_GAMES_ARRAYS`` does, and every other part writes only the rows of games the
move returned. PostgreSQL runs every CTE once, to completion, in the same snapshot; the
tables written here are distinct, and each part's rows have distinct keys.

A part is ``(op, table, columns)``; its statement text depends only on the batch's parts,
so each shape is built and compiled once per process (asyncpg then prepares it once per
connection). A table whose rows differ in their keys, or that lacks a column with a
Python-side default, is not expressible: the batch is then written a statement at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, column, delete, func, literal_column, select, update
from sqlalchemy.dialects import postgresql

from . import schema
from .projection import PRIMARY_KEYS

Part = tuple[str, str, tuple[str, ...]]
"""(``move`` | ``insert`` | ``upsert`` | ``ignore`` | ``delete``, table name, columns)."""

MAX_SHAPES = 256
"""Statement shapes kept built; a batch's parts come from a handful of combinations."""

_SHAPES: dict[tuple[Part, ...], Any] = {}


def _table(name: str) -> Any:
    return schema.metadata.tables[name]


def _unnested(index: int, table: Any, columns: Sequence[str]) -> Any:
    """The part's rows: one array parameter per column, ``unnest``-ed together (a move's
    ``expected`` is a version)."""
    types = [table.c[c if c != "expected" else "version"].type for c in columns]
    return func.unnest(*[bindparam(f"p{index}_{c}", type_=postgresql.ARRAY(t))
                         for c, t in zip(columns, types, strict=True)]).table_valued(
        *[column(c, t) for c, t in zip(columns, types, strict=True)]).render_derived(name=f"r{index}")


def _part(index: int, op: str, name: str, columns: tuple[str, ...], moved: Any) -> Any:
    """One CTE's statement; ``moved``: the move's CTE, whose games alone get rows."""
    table = _table(name)
    rows = _unnested(index, table, columns)
    if op == "move":  # columns: game_id, expected, version, stage
        return (update(table).where(and_(table.c.game_id == rows.c.game_id,
                                         table.c.version == rows.c.expected))
                .values(version=rows.c.version, stage=rows.c.stage).returning(table.c.game_id))
    gate = [rows.c.game_id.in_(select(moved.c.game_id))] if moved is not None else []
    if op == "delete":
        return delete(table).where(and_(*[table.c[c] == rows.c[c] for c in columns], *gate))
    insert = postgresql.insert(table).from_select(
        list(columns), select(*[rows.c[c] for c in columns]).where(*gate))
    if op == "ignore":
        return insert.on_conflict_do_nothing(index_elements=[table.c.key])
    if op == "upsert":
        keys = PRIMARY_KEYS[name]
        return insert.on_conflict_do_update(
            index_elements=list(keys),
            set_=schema.upsert_set(table, [c for c in columns if c not in keys], insert.excluded))
    return insert


def _statement(shape: tuple[Part, ...]) -> Any:
    found = _SHAPES.get(shape)
    if found is None:
        ctes: list[Any] = []
        moved = None
        for i, part in enumerate(shape):
            ctes.append(_part(i, *part, moved).cte(f"w{i}"))
            if part[0] == "move":
                moved = ctes[-1]
        if shape and shape[0][0] == "move":
            found = select(ctes[0].c.game_id).add_cte(*ctes[1:])
        else:
            found = select(literal_column("NULL").label("game_id")).add_cte(*ctes)
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[shape] = found
    return found


class Batch:
    """A batch's writes, gathered part by part, then one statement and its parameters."""

    def __init__(self) -> None:
        self.shape: list[Part] = []
        self.params: dict[str, list[Any]] = {}
        self.expressible = True
        """False once a part cannot be written this way: write the batch as before."""

    def move(self, game_ids: list[str], expected: list[int], versions: list[int],
             stages: list[str]) -> None:
        """The games' rows to their new versions, where still at the expected ones: the
        first part, if any. Every later part writes only the rows of the games it moved,
        so a game another writer moved meanwhile gets nothing (its rows would break a
        key) and is named by what the statement returns."""
        if game_ids:
            self._add("move", "games", ("game_id", "expected", "version", "stage"),
                      [game_ids, expected, versions, stages])

    def rows(self, op: str, name: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """``insert``, ``upsert`` (on the primary key) or ``ignore`` (a duplicate ``key``)."""
        if not rows or not self.expressible:
            return
        columns = tuple(rows[0])
        table = _table(name)
        if any(row.keys() != rows[0].keys() for row in rows) or any(
                c.default is not None and c.name not in columns for c in table.c):
            self.expressible = False
            return
        if op == "ignore":  # the first of a key stays, as row-by-row inserts kept it
            firsts = {row["key"]: row for row in reversed(rows)}
            rows = [row for row in rows if firsts[row["key"]] is row]
        self._add(op, name, columns, [[row[c] for row in rows] for c in columns])

    def delete(self, name: str, keys: Sequence[tuple[Any, ...]]) -> None:
        if keys and self.expressible:
            columns = PRIMARY_KEYS[name]
            self._add("delete", name, columns, [list(values) for values in zip(*keys, strict=True)])

    def _add(self, op: str, name: str, columns: tuple[str, ...], values: list[list[Any]]) -> None:
        index = len(self.shape)
        self.shape.append((op, name, columns))
        for c, column_values in zip(columns, values, strict=True):
            self.params[f"p{index}_{c}"] = column_values

    def statement(self) -> Any:
        return _statement(tuple(self.shape))
