"""Where `arena` keeps things on this machine: one rule for its data, config and cache folders.

Each folder is named by a variable of its own (``ARENA_DATA_DIR``, ``ARENA_CONFIG_DIR``,
``ARENA_CACHE_DIR``); else it is ``patience-arena`` in the XDG base directory of its kind
(``$XDG_DATA_HOME``, ``$XDG_CONFIG_HOME``, ``$XDG_CACHE_HOME``); else in that kind's default under
the home folder (``~/.local/share``, ``~/.config``, ``~/.cache``). Nothing is created.

>>> str(user_folder("cache", {"ARENA_CACHE_DIR": "/tmp/x"}))
'/tmp/x'
>>> str(user_folder("config", {"XDG_CONFIG_HOME": "/c", "HOME": "/h"}))
'/c/patience-arena'
>>> str(user_folder("data", {"HOME": "/h"}))
'/h/.local/share/patience-arena'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["user_folder"]

#: Each kind of folder: (the variable naming it, the XDG variable, the default under home).
_KINDS = {
    "data": ("ARENA_DATA_DIR", "XDG_DATA_HOME", ".local/share"),
    "config": ("ARENA_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
    "cache": ("ARENA_CACHE_DIR", "XDG_CACHE_HOME", ".cache"),
}


def user_folder(kind: str, environ: Mapping[str, str]) -> Path:
    """The folder of ``kind`` ("data", "config" or "cache") for the environment ``environ``
    (see the module docstring); raises KeyError for another kind."""
    own, xdg, under_home = _KINDS[kind]
    if chosen := environ.get(own):
        return Path(chosen).expanduser()
    if base := environ.get(xdg):
        return Path(base) / "patience-arena"
    return Path(environ.get("HOME") or Path.home()) / under_home / "patience-arena"
