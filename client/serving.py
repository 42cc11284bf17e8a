"""``arena serve``'s settings: one flag and one environment variable for every server limit.

Every field of `server.service.ServerConfig` that is a limit or a timing becomes a flag
(``max_moves`` -> ``--max-moves``) and an environment variable (``ARENA_MAX_MOVES``); a flag
wins over the variable, and the variable over the default. Limits that can be switched off take
``none``. The folders, the admin token and the trusted proxies have flags of their own
(``--catalog``, ``--private-catalog``, ``--admin-token``, ``--trusted-proxy``) and variables
(``ARENA_CATALOG``, ``ARENA_PRIVATE_CATALOG``, ``ARENA_ADMIN_TOKEN``, ``ARENA_TRUSTED_PROXIES``).

>>> parser = argparse.ArgumentParser()
>>> add_server_arguments(parser)
>>> config = server_config(parser.parse_args(["--max-moves", "900", "--idle-timeout-s", "none"]), {})
>>> config.max_moves, config.idle_timeout_s, config.hello_timeout_s
(900, None, 10.0)
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path

from client.arguments import bounded
from server.service import ServerConfig

__all__ = ["add_server_arguments", "server_config"]


def _env_name(name: str) -> str:
    return "ARENA_" + name.upper()


def _parser_of(limit: dataclasses.Field) -> Callable[[str], object]:
    """Turn a flag's text into the field's value: int or float, never negative, and 'none' where
    None is allowed."""
    kind = str(limit.type)
    return bounded(int if kind.startswith("int") else float, low=0, nullable="None" in kind)


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every `ServerConfig` limit, plus the catalog folders and the admin token."""
    parser.add_argument("--admin-token", default=None,
                        help="organisers' token for tournaments (default: $ARENA_ADMIN_TOKEN; none: no organiser)")
    parser.add_argument("--catalog", metavar="DIR",
                        help="public catalogs of winnable deals, for practice races (default: seeds/; $ARENA_CATALOG)")
    parser.add_argument("--trusted-proxy", action="append", default=None, metavar="ADDR", dest="trusted_proxies",
                        help="a reverse proxy's address: its connections count against the client address it "
                             "forwards in X-Forwarded-For (repeatable; $ARENA_TRUSTED_PROXIES, comma-separated)")
    parser.add_argument("--private-catalog", metavar="DIR",
                        help="private catalog of winnable deals, for secret ones: tournaments and races "
                             "(default: none; $ARENA_PRIVATE_CATALOG)")
    limits = parser.add_argument_group("limits", "Every limit also reads ARENA_<NAME> from the environment.")
    for limit in ServerConfig.limits():
        limits.add_argument(
            "--" + limit.name.replace("_", "-"),
            dest=limit.name,
            type=_parser_of(limit),
            default=argparse.SUPPRESS,  # absent unless given: None may be a value ('none')
            metavar="N",
            help=f"{limit.metadata['help']} (default {limit.metadata.get('serve', limit.default)}; "
                 f"${_env_name(limit.name)})",
        )


def server_config(args: argparse.Namespace, environ: Mapping[str, str]) -> ServerConfig:
    """The `ServerConfig` that the flags in ``args`` and the variables in ``environ`` ask for.

    Raises ValueError naming the variable when an environment value is not a valid limit.
    """
    values: dict[str, object] = {}
    for limit in ServerConfig.limits():
        if hasattr(args, limit.name):
            values[limit.name] = getattr(args, limit.name)
        elif (text := environ.get(_env_name(limit.name))) is not None:
            try:
                values[limit.name] = _parser_of(limit)(text)
            except argparse.ArgumentTypeError as exc:
                raise ValueError(f"{_env_name(limit.name)}: {exc}") from None
        elif "serve" in limit.metadata:  # `arena serve` has a default of its own (e.g. par on)
            values[limit.name] = limit.metadata["serve"]
    config = ServerConfig(**values)  # type: ignore[arg-type]
    config.admin_token = args.admin_token or environ.get("ARENA_ADMIN_TOKEN") or None
    if catalog := args.catalog or environ.get("ARENA_CATALOG"):
        config.catalog_dir = Path(catalog)
    if private := args.private_catalog or environ.get("ARENA_PRIVATE_CATALOG"):
        config.private_catalog_dir = Path(private)
    proxies = args.trusted_proxies or environ.get("ARENA_TRUSTED_PROXIES", "").split(",")
    config.trusted_proxies = tuple(a.strip() for a in proxies if a.strip())
    return config
