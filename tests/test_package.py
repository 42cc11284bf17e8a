"""The installed package is the product: a wheel holds every package of the checkout, the public
catalogs (seeds/) and the rules pages (docs/games/), and a server installed from it, run from
anywhere, serves every page and draws practice deals from its own catalogs.

The quick tests read pyproject.toml and the checkout; the slow one builds the wheel, installs it
in a fresh virtual environment and runs ``arena serve`` and ``arena create`` from there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from importlib.metadata import version
from pathlib import Path

import pytest

from engine.games import GAMES
from server.catalog import load_catalog, public_catalogs, public_catalogs_to_write
from server.rules_page import rules_text
from tests.conftest import MS

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
#: Seconds to wait for the installed server to answer, or a command to finish; generous for a busy
#: two-core machine.
WAIT_S = 60_000 * MS


def _folder(package: str) -> Path:
    """Where pyproject.toml takes ``package``'s files from."""
    mapped = SETUPTOOLS.get("package-dir", {})
    if package in mapped:
        return ROOT / mapped[package]
    return ROOT / package.replace(".", "/")


def test_every_package_folder_of_the_checkout_is_installed():
    """Every folder of a top-level package that holds files is a listed package (else a wheel
    leaves its files out), and every listed package's folder exists."""
    listed = set(SETUPTOOLS["packages"])
    mapped = {_folder(name) for name in SETUPTOOLS.get("package-dir", {})}
    tops = [p for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p not in mapped]
    found = {
        ".".join(parts)
        for top in tops
        for folder in [top, *top.rglob("*")]
        for parts in [folder.relative_to(ROOT).parts]
        if folder.is_dir()
        and any(f.is_file() for f in folder.iterdir())
        and not any(part == "__pycache__" or part.startswith(".") for part in parts)
    }
    assert not found - listed, f"package folders missing from pyproject.toml's packages: {sorted(found - listed)}"
    assert all(_folder(name).is_dir() for name in listed), [name for name in listed if not _folder(name).is_dir()]


def test_a_checkout_reads_and_writes_the_repositorys_own_folders():
    """From a checkout (an editable install) the public catalogs are seeds/ itself, which `arena
    catalog` writes to, and each rules page is docs/games/KEY.md: one copy of each, no other."""
    assert public_catalogs() == public_catalogs_to_write() == ROOT / "seeds"
    assert _folder("server.seeds") == ROOT / "seeds" and _folder("server.rules_docs") == ROOT / "docs" / "games"
    for game in GAMES:
        assert rules_text(game.key) == (ROOT / "docs" / "games" / f"{game.key}.md").read_text(encoding="utf-8")
    assert rules_text("no_such_game") is None and rules_text("../README") is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=WAIT_S) as response:
        return response.status, response.read()


def _run(*command: str | Path, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [str(c) for c in command], check=False, env=env, cwd=cwd, capture_output=True, text=True, timeout=WAIT_S * 3
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _site_folders() -> list[Path]:
    """This venv's site-packages, then the folders their .pth files add, as `site` reads them."""
    folders = [Path(p) for p in site.getsitepackages()]
    for packages in list(folders):
        for pth in sorted(packages.glob("*.pth")):
            for line in map(str.strip, pth.read_text().splitlines()):
                if line and not line.startswith(("#", "import ", "import\t")) and (packages / line).is_dir():
                    folders.append((packages / line).resolve())
    return folders


def _dependencies(folder: Path) -> Path:
    """``folder`` holding a link to everything in `_site_folders`, except this project's own
    install (its packages, dist-info, editable finder and .pth files, a .pth's checkout): a fresh
    venv gets the dependencies from there, with no download and without seeing the checkout."""
    packages = {name.partition(".")[0] for name in SETUPTOOLS["packages"]} | {"__pycache__"}
    folder.mkdir()
    for where in _site_folders():
        if where.resolve() == ROOT:
            continue
        for entry in where.iterdir():
            own = entry.name in packages or entry.name.startswith(("patience_arena", "__editable__"))
            if not own and entry.suffix != ".pth" and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    return folder


@pytest.mark.slow
def test_the_wheel_installed_elsewhere_serves_rules_pages_games_and_public_deals(tmp_path):
    """Build the wheel offline (this venv's setuptools), install it alone into a fresh venv whose
    dependencies are this venv's, and from outside the checkout: the installed modules are the
    venv's; ``arena serve`` answers every rules page with its table and example, and
    ``/api/games``; ``arena create --winnable --public-seed`` gets a deal of the public catalog;
    writing to the installed catalogs is refused."""
    assert tuple(int(n) for n in version("setuptools").split(".")[:2]) >= (70, 1), (
        "the test extra's setuptools>=70.1 builds the wheel: run make setup"
    )
    source, wheels, venv, elsewhere = (tmp_path / name for name in ("source", "wheels", "venv", "elsewhere"))
    # A copy of the working tree, so that the build leaves nothing in it (build/, *.egg-info) and
    # takes nothing stale from it
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "PYTHON")) and k != "VIRTUAL_ENV"}
    env.update(ARENA_PAR_WORKERS="0", PYTHONNOUSERSITE="1", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    # the installed `arena` keeps its player, cache and data here, never in the user's folders
    env.update({f"ARENA_{name}_DIR": str(tmp_path / name.lower()) for name in ("CONFIG", "CACHE", "DATA")})
    elsewhere.mkdir()
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        source,
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-q",
        "-w",
        wheels,
        env=env,
        cwd=elsewhere,
    )
    (wheel,) = wheels.glob("patience_arena-*.whl")
    _run(sys.executable, "-m", "venv", "--without-pip", venv, env=env, cwd=elsewhere)
    python = venv / "bin" / "python"
    purelib = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", env=env, cwd=elsewhere).strip()
    )
    (purelib / "_dependencies.pth").write_text(f"{_dependencies(tmp_path / 'dependencies')}\n")
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        wheel,
        env=env,
        cwd=elsewhere,
    )

    assert shutil.which("arena", path=env["PATH"]) == str(venv / "bin" / "arena")
    where = json.loads(
        _run(
            python,
            "-c",
            """if True:
        import json, client.cli, engine, server, server.catalog as c, server.rules_page as r
        try:
            c.public_catalogs_to_write()
            refused = None
        except c.CatalogError as exc:
            refused = str(exc)
        print(json.dumps({"modules": [m.__file__ for m in (client.cli, engine, server)], "refused": refused,
                          "catalogs": str(c.public_catalogs()), "klondike": r.rules_text("klondike")}))
        """,
            env=env,
            cwd=elsewhere,
        )
    )
    assert all(Path(f).is_relative_to(purelib) for f in where["modules"]), where["modules"]
    assert Path(where["catalogs"]) == purelib / "server" / "seeds"
    assert where["klondike"] == rules_text("klondike")
    assert where["refused"] and "--dir DIR" in where["refused"]

    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [venv / "bin" / "arena", "serve", "--port", str(port)],
        env=env,
        cwd=elsewhere,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (
                    "the installed server did not start:\n" + (tmp_path / "serve.log").read_text()
                )
                time.sleep(0.1)
        base = f"http://127.0.0.1:{port}"
        status, body = _get(base + "/api/games")
        games = json.loads(body)
        assert status == 200 and [g["key"] for g in games] == [g.key for g in GAMES]
        for game, game_cls in zip(games, GAMES):
            status, page = _get(base + game["rules"])
            text = page.decode()
            assert status == 200 and f"<h1>{game_cls.name}</h1>" in text, game["key"]
            assert "<h2>How to win</h2>" in text and "<h2>An example</h2>" in text, game["key"]
            assert 'class="rules-board layout"' in text and 'class="rules-board example"' in text, game["key"]
            assert 'class="error"' not in text and "no rules page" not in text, game["key"]

        out = _run(
            venv / "bin" / "arena",
            "create",
            "--server",
            f"ws://127.0.0.1:{port}",
            "--game",
            "klondike",
            "--winnable",
            "--public-seed",
            env=env,
            cwd=elsewhere,
        )
        seed = int(re.search(r"created: klondike, seed (\d+)\.", out).group(1))
        assert seed in {e.seed for e in load_catalog(public_catalogs(), "klondike")}
    finally:
        server.terminate()
        server.wait(WAIT_S)
        log.close()
