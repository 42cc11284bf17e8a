"""What `arena` loads: its own help and version load the command line alone; the server, the engine,
the solver, the tooling and the third-party libraries come only with a command that uses them.

Each run is a child process started as the console script starts (``from client.cli import main``)
under ``python -X importtime``, which writes one line per module imported to stderr: the tests read
which modules were loaded, never how long it took (speed is measured with the CLI, not timed here).
The import graph of client/ and tooling/ is read from the source with `ast`.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import _COMMANDS, EXIT_CODES

ROOT = Path(__file__).resolve().parents[2]

#: What ``arena --help`` and ``arena --version`` must not load: every package of ours but the
#: client's command line, every third-party package ``arena`` depends on, and asyncio.
HEAVY = (
    "engine",
    "server",
    "solver",
    "tooling",
    "websockets",
    "msgspec",
    "redis",
    "hiredis",
    "rich",
    "croniter",
    "markdown_it",
    "prometheus_client",
    "prompt_toolkit",
    "uvloop",
    "asyncio",
)

_IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", re.MULTILINE)


def _arena(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``arena ARGS`` as its console script does; return the run and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import sys; from client.cli import main; sys.exit(main())", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    return done, set(_IMPORT_LINE.findall(done.stderr))


def _packages(modules: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_load_the_command_line_alone(flag):
    done, modules = _arena(flag)
    assert done.returncode == 0 and done.stdout.startswith(("arena ", "usage: arena"))
    assert {name for name in modules if name.partition(".")[0] == "client"} == {"client", "client.cli"}
    assert not _packages(modules) & set(HEAVY), sorted(m for m in modules if m.partition(".")[0] in HEAVY)


def test_help_lists_every_command_and_what_each_exit_code_means():
    done, _ = _arena("--help")
    assert sorted(re.findall(r"^    ([\w-]+)", done.stdout, re.MULTILINE)) == sorted(_COMMANDS)
    for name in _COMMANDS:
        assert re.search(rf"^    {name}\s+\w", done.stdout, re.MULTILINE), f"no help line for {name}"
    for code, meaning in EXIT_CODES.items():
        assert f"{code:<4} {meaning}" in done.stdout


def test_a_command_loads_what_it_uses_and_only_bench_and_fuzz_load_the_tooling():
    """A command's own arguments come with it: `arena games` loads the engine but no server, and
    the help of the tooling's commands is complete."""
    done, modules = _arena("games", "--json")
    assert done.returncode == 0 and '"klondike"' in done.stdout
    assert "engine.games" in modules
    assert not _packages(modules) & {"server", "solver", "tooling", "websockets", "redis"}
    done, modules = _arena("bench", "engine", "--help")
    assert done.returncode == 0 and "tooling.bench" in modules
    for flag in ("--games GAME,GAME", "--seconds", "--seed", "--json FILE"):
        assert flag in done.stdout
    done, modules = _arena("fuzz", "--help")
    assert done.returncode == 0 and "tooling.fuzz" in modules and "tooling.bench" not in modules
    for flag in ("--frames N", "--connections C", "--seed S", "--server URL", "--oversize-share F", "--json FILE"):
        assert flag in done.stdout


def _imports() -> dict[str, set[str]]:
    """Each module of client/ and tooling/ -> the modules of client/ and tooling/ it imports, from any
    import statement in it (at the top or inside a function)."""
    paths = {
        path.parent.name if path.stem == "__init__" else f"{path.parent.name}.{path.stem}": path
        for package in ("client", "tooling")
        for path in sorted((ROOT / package).glob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {target for target in found if target in paths and target != name}
    return graph


def test_client_imports_the_tooling_only_in_the_bench_and_fuzz_commands():
    """client/ is the product: only `client.cli`'s functions of ``arena bench`` and ``arena fuzz``
    import tooling/, inside the function, when that command runs."""
    outside_cli = {
        name: sorted(targets)
        for name, targets in _imports().items()
        if name.partition(".")[0] == "client"
        and name != "client.cli"
        and any(target.partition(".")[0] == "tooling" for target in targets)
    }
    assert not outside_cli
    tree = ast.parse((ROOT / "client" / "cli.py").read_text())
    at_top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert not [node for node in at_top if "tooling" in ast.unparse(node)]
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    importers = {
        function.name
        for function in functions
        for node in ast.walk(function)
        if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == "tooling"
    }
    assert importers == {"_cmd_bench", "_bench_arguments", "_cmd_fuzz", "_fuzz_arguments"}


def test_no_module_of_client_or_tooling_imports_itself_in_a_circle():
    graph = _imports()
    done: set[str] = set()

    def walk(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(name) :] + [name]))
        if name in done:
            return
        for target in sorted(graph[name]):
            walk(target, path + [name])
        done.add(name)

    for name in sorted(graph):
        walk(name, [])
