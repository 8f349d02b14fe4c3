"""The ``lejepa`` command without torch: ``--help``, ``--version`` and ``lejepa check`` work on a
pycheck-only install (torch made unimportable by a meta-path finder in a subprocess); subcommands
are imported lazily (``--help`` imports no torch even where torch is installed); a command that
needs torch says which extra to install instead of a traceback; the registry has no import circle.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lejepa_experiments import __version__, cli

BLOCK_TORCH = textwrap.dedent("""
    import importlib.abc, sys
    class _NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
            return None
    sys.meta_path.insert(0, _NoTorch())
    for m in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[m]
    from lejepa_experiments.cli import main
    try:
        rc = main(sys.argv[1:])
    except SystemExit as exc:   # argparse's --help / --version
        rc = exc.code
    assert "torch" not in sys.modules
    sys.exit(rc)
""")


def _lejepa(*args: str, block_torch: bool = True) -> subprocess.CompletedProcess[str]:
    code = BLOCK_TORCH if block_torch else (
        "import sys\nfrom lejepa_experiments.cli import main\n"
        "try:\n    rc = main(sys.argv[1:])\nexcept SystemExit as exc:\n    rc = exc.code\n"
        "print('TORCH_IMPORTED' if 'torch' in sys.modules else 'NO_TORCH', file=sys.stderr)\nsys.exit(rc)\n")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600,
                          env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})


def test_help_without_torch_lists_every_subcommand() -> None:
    r = _lejepa("--help")
    assert r.returncode == 0, r.stderr
    for name in cli.SUBCOMMANDS:
        assert name in r.stdout
    assert "Traceback" not in r.stderr


def test_help_does_not_import_torch_even_when_installed() -> None:
    r = _lejepa("--help", block_torch=False)
    assert r.returncode == 0 and r.stderr.strip().endswith("NO_TORCH"), r.stderr
    r = _lejepa("check", "--help", block_torch=False)
    assert r.returncode == 0 and "--checkpoints" in r.stdout and r.stderr.strip().endswith("NO_TORCH")


def test_check_theorem1_without_torch_passes_and_json_stays_clean() -> None:
    r = _lejepa("check", "--only", "theorem1", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)                      # progress went to stderr, stdout is pure JSON
    assert data["failed"] == 0 and data["passed"] > 0
    assert "[1/1] theorem1" in r.stderr


def test_trained_checks_without_torch_are_a_skip_row() -> None:
    r = _lejepa("check", "--only", "checks_trained")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SKIP" in r.stdout and r.stdout.splitlines()[-1] == "0 passed, 0 failed, 1 skipped"


def test_train_without_torch_names_the_extra(tmp_path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text("{}")
    r = _lejepa("train", "--config", str(cfg), "--run", "r", "--out", str(tmp_path))
    assert r.returncode == 2
    assert "pip install -e '.[train]'" in r.stderr and "Traceback" not in r.stderr
    r = _lejepa("plan", "--help")                    # argparse definitions import no torch
    assert r.returncode == 0 and "--checkpoint" in r.stdout


def test_version_and_python_m() -> None:
    r = subprocess.run([sys.executable, "-m", "lejepa_experiments", "--version"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == f"lejepa {__version__}"


def test_registry_entries_resolve_and_modules_do_not_import_cli() -> None:
    import ast
    import importlib.util

    for name, (help_, add_ref, run_ref) in cli.SUBCOMMANDS.items():
        assert help_ and ":" in add_ref and ":" in run_ref
        for ref in (add_ref, run_ref):
            mod, _, attr = ref.partition(":")
            spec = importlib.util.find_spec(mod)
            assert spec is not None and spec.origin is not None, ref
            tree = ast.parse(open(spec.origin, encoding="utf-8").read())
            defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            assert attr in defined, ref
            if mod != "lejepa_experiments.cli":      # no import circle: only cli knows the table
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom):
                        assert node.module not in ("cli", "lejepa_experiments.cli"), f"{mod} imports cli"


@pytest.mark.parametrize("argv,needle", [
    (["check", "--only", "nonsense"], "unknown check module 'nonsense'; valid modules: theorem1, theorem2"),
    (["check", "--only", "theorem1", "--checkpoints", "/nonexistent"], "--checkpoints is read only by"),
])
def test_check_usage_errors_exit_2(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    if "nonsense" in argv:
        assert "checks_trained" in err


def test_a_new_subcommand_is_one_table_entry(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "demo_cmd.py").write_text(
        "def add_args(p):\n    p.add_argument('--n', type=int, required=True)\n"
        "def run(args):\n    print('demo', args.n * 2)\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.SUBCOMMANDS, "demo", ("a demo", "demo_cmd:add_args", "demo_cmd:run"))
    assert cli.main(["demo", "--n", "21"]) == 0
    assert capsys.readouterr().out.strip() == "demo 42"
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "a demo" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(cli.SUBCOMMANDS))
def test_every_subcommand_help_imports_no_torch(name: str) -> None:
    r = _lejepa(name, "--help", block_torch=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: lejepa " + name)
    assert r.stderr.strip().endswith("NO_TORCH"), f"`lejepa {name} --help` imported torch"
