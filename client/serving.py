"""``arena serve``'s settings: one flag and one environment variable for every server limit.

Every field of `server.config.ServerConfig` that is a limit or a timing becomes a flag
(``max_moves`` -> ``--max-moves``) and an environment variable (``ARENA_MAX_MOVES``); a flag
wins over the variable, and the variable over the default. Limits that can be switched off take
``none``. The folders, the admin token, the trusted proxies and the addresses that may read
``/metrics``, the Redis to keep races in, the node's name, the data directory and the archive
have flags of their own (``--catalog``, ``--private-catalog``, ``--admin-token``,
``--trusted-proxy``, ``--metrics-from``, ``--redis``, ``--node-id``, ``--data-dir``, ``--public-origin``,
``--archive``; ``--redis redis+cluster://HOST:PORT,HOST:PORT`` names a Redis Cluster,
``--redis redis+sentinel://HOST:PORT,HOST:PORT/MASTER`` the primary Redis Sentinel watches)
and variables (``ARENA_CATALOG``, ``ARENA_PRIVATE_CATALOG``, ``ARENA_ADMIN_TOKEN``,
``ARENA_TRUSTED_PROXIES``, ``ARENA_METRICS_FROM``, ``ARENA_REDIS_URL``, ``ARENA_NODE_ID``,
``ARENA_DATA_DIR``, ``ARENA_ARCHIVE``: `default_data_dir`, ``ARENA_PUBLIC_ORIGIN``); so do
the log's level and format (``--log-level``, ``--log-format``; ``ARENA_LOG_LEVEL``,
``ARENA_LOG_FORMAT``: `log_settings`) and the event loop (``--event-loop``, ``ARENA_EVENT_LOOP``:
`event_loop_factory`).

>>> parser = argparse.ArgumentParser()
>>> add_server_arguments(parser)
>>> config = server_config(parser.parse_args(["--max-moves", "900", "--idle-timeout-s", "none"]), {})
>>> config.max_moves, config.idle_timeout_s, config.hello_timeout_s
(900, None, 10.0)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
from collections.abc import Callable, Mapping
from pathlib import Path

from client.arguments import bounded
from client.folders import user_folder
from server.catalog import public_catalogs
from server.config import ARCHIVE_FILE, ServerConfig
from server.logs import LOG_FORMATS, LOG_LEVELS
from server.passkeys import relying_party
from server.store.redis import CLUSTER_SCHEMES, SENTINEL_SCHEMES, cluster_seeds, sentinel_service

__all__ = [
    "EVENT_LOOPS",
    "add_server_arguments",
    "default_data_dir",
    "event_loop_factory",
    "log_settings",
    "server_config",
]

#: The event loops `arena serve` can run on: ``auto`` (uvloop where it is installed, as it is
#: with this project on Linux and macOS; else asyncio's own), ``uvloop``, ``asyncio``.
EVENT_LOOPS = ("auto", "uvloop", "asyncio")


def _env_name(name: str) -> str:
    return "ARENA_" + name.upper()


def _parser_of(limit: dataclasses.Field) -> Callable[[str], object]:
    """Turn a flag's text into the field's value: int or float, never negative, and 'none' where
    None is allowed."""
    kind = str(limit.type)
    return bounded(int if kind.startswith("int") else float, low=0, nullable="None" in kind)


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every `ServerConfig` limit, plus the catalog folders, the admin token and
    the Redis URL."""
    parser.add_argument(
        "--admin-token",
        default=None,
        help="organisers' token for tournaments (default: $ARENA_ADMIN_TOKEN; none: no organiser)",
    )
    parser.add_argument(
        "--public-origin",
        default=None,
        help="the origin players load the page from, https://HOST[:PORT], for passkeys "
        "(default: $ARENA_PUBLIC_ORIGIN; none: no passkeys)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="keep races in this Redis, e.g. redis://127.0.0.1:6379/0, or in this Redis Cluster, "
        "redis+cluster://HOST:PORT[,HOST:PORT...], or in the primary Redis Sentinel watches, "
        "redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB] (default: $ARENA_REDIS_URL; none: in memory)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=None,
        help="where the server keeps what outlives it: every finished race and tournament, in the "
        f"SQLite file DIR/{ARCHIVE_FILE} (default: $ARENA_DATA_DIR, else $XDG_DATA_HOME/patience-arena, "
        "else ~/.local/share/patience-arena)",
    )
    parser.add_argument(
        "--archive",
        metavar="URL",
        default=None,
        help="keep finished races and tournaments in this archive instead: sqlite:///PATH, "
        "postgresql://USER:PASSWORD@HOST:PORT/DB (several nodes share one), memory:// (lost at "
        "exit), or 'none': no archive (default: $ARENA_ARCHIVE, else the data directory's file)",
    )
    parser.add_argument(
        "--node-id",
        metavar="NAME",
        default=None,
        help="with --redis: this node's name among the nodes sharing that Redis (default: "
        "$ARENA_NODE_ID, else HOSTNAME:PORT); a node restarted under the same name resumes "
        "its own races",
    )
    parser.add_argument(
        "--catalog",
        metavar="DIR",
        help="public catalogs of winnable deals, for practice races (default: those installed with the "
        "package, seeds/ in a checkout; $ARENA_CATALOG)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=None,
        metavar="ADDR",
        dest="trusted_proxies",
        help="a reverse proxy's address: its connections count against the client address it "
        "forwards in X-Forwarded-For (repeatable; $ARENA_TRUSTED_PROXIES, comma-separated)",
    )
    parser.add_argument(
        "--private-catalog",
        metavar="DIR",
        help="private catalog of winnable deals, for secret ones: tournaments and races "
        "(default: none; $ARENA_PRIVATE_CATALOG)",
    )
    parser.add_argument(
        "--metrics-from",
        action="append",
        default=None,
        metavar="ADDR",
        dest="metrics_from",
        help="an address or network (10.0.0.0/8) that may GET /metrics (repeatable; default "
        "127.0.0.1 and ::1; 'none': nobody; $ARENA_METRICS_FROM, comma-separated)",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=None,
        help="least severe log lines written (default info; $ARENA_LOG_LEVEL)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=None,
        help="text lines, or one JSON object per line (default text; $ARENA_LOG_FORMAT)",
    )
    parser.add_argument(
        "--event-loop",
        choices=EVENT_LOOPS,
        default=None,
        help="the asyncio event loop to serve on: uvloop (about 3%% less CPU per move with a large "
        "audience, docs/performance.md §3.14), asyncio's own, or auto: uvloop where it is installed "
        "(default auto; $ARENA_EVENT_LOOP)",
    )
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

    Raises ValueError naming the variable when an environment value is not a valid limit, or
    the flag and the variable when the Redis URL is not one (a Redis Cluster's names its nodes,
    `server.store.redis.cluster_seeds`).

    >>> parser = argparse.ArgumentParser()
    >>> add_server_arguments(parser)
    >>> server_config(parser.parse_args([]), {"ARENA_REDIS_URL": "redis+cluster://10.0.0.1:7000,10.0.0.2"}).redis_url
    'redis+cluster://10.0.0.1:7000,10.0.0.2'
    >>> server_config(parser.parse_args(["--redis", "redis+cluster://10.0.0.1:7000/2"]), {})
    Traceback (most recent call last):
    ...
    ValueError: --redis / ARENA_REDIS_URL: a Redis Cluster has database 0 only, not '/2'
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
    config.daily_secret = environ.get("ARENA_DAILY_SECRET") or None  # (no flag: a secret stays out of `ps`)
    config.public_origin = getattr(args, "public_origin", None) or environ.get("ARENA_PUBLIC_ORIGIN") or None
    if config.public_origin is not None:
        try:
            relying_party(config.public_origin)
        except ValueError as exc:
            raise ValueError(f"--public-origin / ARENA_PUBLIC_ORIGIN: {exc}") from None
    config.redis_url = getattr(args, "redis", None) or environ.get("ARENA_REDIS_URL") or None
    if config.redis_url is not None:
        schemes = ("redis", "rediss", "unix", *CLUSTER_SCHEMES, *SENTINEL_SCHEMES)
        if config.redis_url.split("://", 1)[0].lower() not in schemes:
            raise ValueError(
                f"--redis / ARENA_REDIS_URL: not a redis://, rediss://, unix://, (a Redis Cluster) "
                f"redis+cluster:// or rediss+cluster://, or (Redis Sentinel) redis+sentinel:// or "
                f"rediss+sentinel:// URL: {config.redis_url!r}"
            )
        try:
            cluster = cluster_seeds(config.redis_url) is not None
            sentinel_service(config.redis_url)
        except ValueError as exc:
            raise ValueError(f"--redis / ARENA_REDIS_URL: {exc}") from None
        if cluster and config.redis_wait_replicas > 0:
            raise ValueError("--redis-wait-replicas: not with a Redis Cluster (one Redis or a Sentinel's primary)")
    archive = getattr(args, "archive", None) or environ.get("ARENA_ARCHIVE") or None
    if archive is not None and archive.strip().lower() == "none":
        config.archive_url = config.data_dir = None
    else:
        config.archive_url = archive
        config.data_dir = Path(getattr(args, "data_dir", None) or default_data_dir(environ))
    config.node_id = getattr(args, "node_id", None) or environ.get("ARENA_NODE_ID") or None
    if config.node_id is not None and not (
        0 < len(config.node_id) <= 64 and config.node_id.isprintable() and " " not in config.node_id
    ):
        raise ValueError(f"--node-id / ARENA_NODE_ID: 1 to 64 printable characters without spaces: {config.node_id!r}")
    catalog = args.catalog or environ.get("ARENA_CATALOG")
    config.catalog_dir = Path(catalog) if catalog else public_catalogs()
    if private := args.private_catalog or environ.get("ARENA_PRIVATE_CATALOG"):
        config.private_catalog_dir = Path(private)
    proxies = args.trusted_proxies or environ.get("ARENA_TRUSTED_PROXIES", "").split(",")
    config.trusted_proxies = tuple(a.strip() for a in proxies if a.strip())
    readers = args.metrics_from or (
        environ["ARENA_METRICS_FROM"].split(",") if environ.get("ARENA_METRICS_FROM") else None
    )
    if readers is not None:
        config.metrics_from = tuple(a.strip() for a in readers if a.strip() and a.strip().lower() != "none")
        for address in config.metrics_from:
            try:
                ipaddress.ip_network(address, strict=False)
            except ValueError:
                raise ValueError(
                    f"--metrics-from / ARENA_METRICS_FROM: not an address or network: {address!r}"
                ) from None
    return config


def default_data_dir(environ: Mapping[str, str]) -> Path:
    """`arena serve`'s data directory when ``--data-dir`` is not given: ``$ARENA_DATA_DIR``,
    else ``$XDG_DATA_HOME/patience-arena``, else ``~/.local/share/patience-arena``
    (`client.folders.user_folder`).

    >>> default_data_dir({"XDG_DATA_HOME": "/data"})
    PosixPath('/data/patience-arena')
    """
    return user_folder("data", environ)


def log_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[str, str]:
    """The log's level and format (`server.logs.configure_logging`) from ``--log-level`` and
    ``--log-format``, else ``ARENA_LOG_LEVEL`` and ``ARENA_LOG_FORMAT``, else info and text.
    Raises ValueError naming the variable when an environment value is not one of the choices.

    >>> log_settings(argparse.Namespace(log_level=None, log_format="json"), {"ARENA_LOG_LEVEL": "debug"})
    ('debug', 'json')
    """
    return (
        _choice(args, environ, "log_level", LOG_LEVELS, "info"),
        _choice(args, environ, "log_format", LOG_FORMATS, "text"),
    )


def _choice(
    args: argparse.Namespace | None, environ: Mapping[str, str], name: str, choices: tuple[str, ...], default: str
) -> str:
    """The flag ``name`` of ``args`` when given (argparse has checked it), else the variable
    ``ARENA_<NAME>`` of ``environ``, else ``default``. Raises ValueError naming the variable
    when its value is not one of ``choices``."""
    value = getattr(args, name, None)
    if value is None:
        variable = _env_name(name)
        value = environ.get(variable, default).strip().lower()
        if value not in choices:
            raise ValueError(f"{variable}: {value!r} is not one of {', '.join(choices)}")
    return value


def event_loop_factory(
    args: argparse.Namespace | None, environ: Mapping[str, str]
) -> tuple[str, Callable[[], asyncio.AbstractEventLoop] | None]:
    """The event loop chosen by ``--event-loop`` (``args``, when it has that flag), else by
    ``ARENA_EVENT_LOOP``, else ``auto``: its name ("uvloop" or "asyncio") and the factory to
    give `asyncio.Runner` (None: asyncio's own loop).

    Raises ValueError naming the variable when its value is not one of `EVENT_LOOPS`, or when
    uvloop is asked for and is not installed.

    >>> event_loop_factory(None, {"ARENA_EVENT_LOOP": "asyncio"})
    ('asyncio', None)
    >>> event_loop_factory(None, {"ARENA_EVENT_LOOP": "fast"})
    Traceback (most recent call last):
    ...
    ValueError: ARENA_EVENT_LOOP: 'fast' is not one of auto, uvloop, asyncio
    """
    choice = _choice(args, environ, "event_loop", EVENT_LOOPS, "auto")
    if choice == "asyncio":
        return "asyncio", None
    try:
        import uvloop
    except ImportError:
        if choice == "auto":
            return "asyncio", None
        raise ValueError(
            "--event-loop / ARENA_EVENT_LOOP: uvloop is not installed here (pip install uvloop, or choose asyncio)"
        ) from None
    return "uvloop", uvloop.new_event_loop
