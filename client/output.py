"""How the ``arena`` commands print what they list, for a person or for a program.

Every listing command (``games``, ``races``, ``tournament list|show``, ``catalog``,
``simulate``) builds one `Listing` and hands it to `show`, which prints it in one of three
forms:

* on a terminal: a rich table, with its title above and its notes (for example "More: arena
  races --before N") below;
* when stdout is not a terminal (a pipe, a file): one line per row, the cells separated by a
  tab, after one header line of column names; the title and the notes go to stderr, so that
  ``arena games > games.tsv`` holds the rows alone;
* with ``--json``: one JSON document on stdout (`Listing.data`, the listing's own values, not its
  display text: milliseconds stay integers, absent values are null).

Commands that follow something live (``watch``, ``tournament show --follow``) print one line per
event as it happens when stdout is not a terminal, and one JSON object per line with ``--json``
(`json_line`), flushing each, so that a pipe sees the events as they come.

>>> import io
>>> listing = Listing("Games", ["key", "name"], [["klondike", "Klondike"]], data=[{"key": "klondike"}])
>>> out = io.StringIO()
>>> show(listing, Console(file=io.StringIO()), as_json=False, terminal=False, out=out, err=io.StringIO())
>>> out.getvalue()
'key\\tname\\nklondike\\tKlondike\\n'
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import IO, Any, TextIO

import msgspec
from rich.console import Console
from rich.markup import escape
from rich.table import Table

__all__ = ["Listing", "add_json_flag", "json_line", "plain_cell", "print_line", "show", "to_json"]


@dataclass(slots=True)
class Listing:
    """What a listing command found.

    ``columns``: the column names; ``rows``: one list of display texts per row, as long as
    ``columns``; ``data``: the same rows as JSON values for ``--json`` (protocol messages may be
    given as they are: `to_json` turns them into plain values); ``notes``: lines for a person
    (hints, totals), printed after the table; ``right``: the columns to right-justify (numbers).
    """

    title: str
    columns: list[str]
    rows: list[list[str]]
    data: Any = None
    notes: list[str] = field(default_factory=list)
    right: frozenset[str] = frozenset()


def add_json_flag(parser: argparse.ArgumentParser, help_text: str = "") -> None:
    """Give a command ``--json`` (stored as ``args.json``)."""
    parser.add_argument(
        "--json", action="store_true", help=help_text or "print one JSON document instead of a table (for programs)"
    )


def to_json(value: Any) -> Any:
    """``value`` (protocol messages, dataclasses with ``as_dict``, lists and maps of them) as
    plain JSON values; a message keeps its ``type`` tag."""
    return msgspec.to_builtins(value, enc_hook=lambda v: v.as_dict() if hasattr(v, "as_dict") else str(v))


def plain_cell(text: str) -> str:
    """A cell for a tab-separated line: tabs and line breaks inside it become spaces."""
    return " ".join(str(text).split())


def show(
    listing: Listing,
    console: Console,
    *,
    as_json: bool,
    terminal: bool | None = None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> None:
    """Print ``listing`` as a table (``terminal``: default, whether ``console`` writes to one),
    as tab-separated lines, or as JSON (``as_json``); see the module docstring. ``out``: where
    rows go (default: the console's file); ``err``: where titles and notes go when the rows are
    plain lines (default: stderr)."""
    out = out or console.file
    err = err or sys.stderr
    if as_json:
        out.write(json.dumps(to_json(listing.data), ensure_ascii=False) + "\n")
        return
    if terminal if terminal is not None else console.is_terminal:
        table = Table(title=escape(listing.title) or None)
        for column in listing.columns:
            table.add_column(column, justify="right" if column in listing.right else "left")
        for row in listing.rows:
            table.add_row(*(escape(cell) for cell in row))
        console.print(table)
        for note in listing.notes:
            console.print(note, highlight=False, soft_wrap=True)
        return
    if listing.title:
        err.write(listing.title + "\n")
    lines = ["\t".join(plain_cell(c) for c in listing.columns)]
    lines += ["\t".join(plain_cell(c) for c in row) for row in listing.rows]
    out.write("\n".join(lines) + "\n")
    for note in listing.notes:
        err.write(note + "\n")
    out.flush()


def print_line(text: str, console: Console) -> None:
    """Print one line of a live stream on ``console`` as it is (no markup, no wrapping); rich
    writes and flushes it at once, so that a pipe sees it now."""
    console.print(escape(text), highlight=False, soft_wrap=True)


def json_line(value: Any, out: TextIO | None = None) -> None:
    """Write ``value`` (see `to_json`) as one JSON line on ``out`` (stdout) and flush it."""
    out = out or sys.stdout
    out.write(json.dumps(to_json(value), ensure_ascii=False) + "\n")
    out.flush()
