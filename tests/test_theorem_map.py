"""The theorem map (docs/theorems.md) names only things that exist: every Lean declaration in
its Lean column is declared under Lejepa/, every pycheck test in its last column exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "theorems.md"
DECL = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)*(?:(?:private|protected|noncomputable)\s+)*"
                  r"(?:theorem|lemma|def|abbrev|structure|class|inductive|instance)\s+([^\s:({\[]+)",
                  re.M)


def table_rows() -> list[list[str]]:
    rows = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and not re.match(r"^\|\s*-", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] != "Paper item":
                rows.append(cells)
    return rows


def lean_declarations() -> set[str]:
    """Fully qualified names declared under Lejepa/ (namespace blocks resolved)."""
    names: set[str] = set()
    for path in (ROOT / "Lejepa").rglob("*.lean"):
        stack: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*namespace\s+(\S+)", line)
            if m:
                stack.append(m.group(1))
                continue
            m = re.match(r"^\s*end\s+(\S+)", line)
            if m and stack and stack[-1] == m.group(1):
                stack.pop()
                continue
            m = DECL.match(line)
            if m:
                names.add(".".join([*stack, m.group(1)]))
    return names


def python_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            out.add(node.name)
    return out


def test_map_has_rows() -> None:
    assert len(table_rows()) >= 4


def test_every_lean_name_exists() -> None:
    decls = lean_declarations()
    missing = []
    for row in table_rows():
        for name in re.findall(r"`([A-Za-z_][\w.']*)`", row[2]):
            if name.startswith("Lejepa.") and name not in decls:
                missing.append(name)
    assert not missing, f"theorem map names Lean declarations that do not exist: {missing}"


def test_every_pycheck_test_exists() -> None:
    missing = []
    for row in table_rows():
        for file, name in re.findall(r"`([\w/]+\.py)::(\w+)`", row[-1]):
            path = ROOT / file
            if not path.exists() or name not in python_tests(path):
                missing.append(f"{file}::{name}")
    assert not missing, f"theorem map names tests that do not exist: {missing}"


def test_every_formalized_row_is_mirrored() -> None:
    """A row that names a Lean declaration also names at least one pycheck test."""
    bare = [row[0] for row in table_rows()
            if re.search(r"`Lejepa\.", row[2]) and not re.search(r"`[\w/]+\.py::\w+`", row[-1])]
    assert not bare, f"rows with a Lean declaration but no pycheck test: {bare}"
