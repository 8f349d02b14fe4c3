"""The theorem map (docs/theorems.md), the blueprint (blueprint/src/content.tex) and the Lean sources
(Lejepa/*.lean) agree.

* The map names only things that exist: every Lean declaration in its Lean column is declared under
  Lejepa/, every pycheck test in its last column exists.
* The blueprint and the map do not drift: every map row has a blueprint statement (``\\maprow``) and
  every statement its row; every Lean name of a row is ``\\lean``-tagged on a statement of that row;
  every ``\\lean`` name is declared under Lejepa/, on exactly one statement.
* The blueprint's status and edges are the Lean sources': ``\\leanok`` exactly where the
  declarations are written with no sorry/admit/axiom, and the ``\\uses`` edges between formalized
  statements are exactly the mentions found in the Lean statements and proofs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lejepa_experiments import blueprint, leansrc

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "theorems.md"
CONTENT = ROOT / "blueprint" / "src" / "content.tex"
DECL = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)*(?:(?:private|protected|noncomputable)\s+)*"
                  r"(?:theorem|lemma|def|abbrev|structure|class|inductive|instance)\s+([^\s:({\[]+)",
                  re.M)


@pytest.fixture(scope="module")
def rows() -> list[blueprint.MapRow]:
    return blueprint.map_rows(ROOT)


@pytest.fixture(scope="module")
def nodes() -> list[blueprint.Node]:
    return blueprint.parse_content(CONTENT)


@pytest.fixture(scope="module")
def decls() -> dict[str, leansrc.Decl]:
    return leansrc.load(ROOT)


def lean_declarations() -> set[str]:
    """Fully qualified names declared under Lejepa/ (namespace blocks resolved), by a plain regex:
    an independent check of the parser in ``lejepa_experiments.leansrc``."""
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


# ------------------------------------------------------------------------------ the map itself
def test_map_has_rows(rows: list[blueprint.MapRow]) -> None:
    assert len(rows) >= 4
    assert len({r.item for r in rows}) == len(rows), "two theorem-map rows share a Paper item"


def test_every_lean_name_exists(rows: list[blueprint.MapRow]) -> None:
    decls = lean_declarations()
    missing = [name for row in rows for name in row.lean if name not in decls]
    assert not missing, f"theorem map names Lean declarations that do not exist: {missing}"


def test_every_pycheck_test_exists(rows: list[blueprint.MapRow]) -> None:
    missing = []
    for row in rows:
        for ref in row.pycheck:
            file, name = ref.split("::")
            path = ROOT / file
            if not path.exists() or name not in python_tests(path):
                missing.append(ref)
    assert not missing, f"theorem map names tests that do not exist: {missing}"


def test_every_formalized_row_is_mirrored(rows: list[blueprint.MapRow]) -> None:
    """A row that names a Lean declaration also names at least one pycheck test."""
    bare = [row.item for row in rows if row.lean and not row.pycheck]
    assert not bare, f"rows with a Lean declaration but no pycheck test: {bare}"


def test_rows_with_pipes_in_cells_are_parsed(rows: list[blueprint.MapRow]) -> None:
    """Claims like ``ρ^|α|`` contain ``|``: the Lean column must still be found (it was silently
    skipped by a plain split before)."""
    piped = [r for r in rows if "|α|" in r.claim]
    assert piped and all(r.lean for r in piped), [r.item for r in piped]


# ---------------------------------------------------------------------- the Lean source parser
def test_parser_finds_every_declaration(decls: dict[str, leansrc.Decl]) -> None:
    assert set(decls) == lean_declarations()


def test_parser_reads_statements_and_mentions(decls: dict[str, leansrc.Decl]) -> None:
    d = decls["Lejepa.Hermite.linear_identifiability"]
    assert d.kind == "theorem" and "Theorem 4.1" in d.doc
    assert d.statement.startswith("theorem linear_identifiability") and ":=" not in d.statement
    assert d.body.lstrip().startswith(":=")
    # its proof applies these (Lejepa.Hermite), and a file that opens Lejepa.Hermite resolves them too
    assert {"Lejepa.Hermite.alignLoss_eq_iff", "Lejepa.Hermite.linearPart_mem_orthogonalGroup"} <= d.uses
    assert "Lejepa.Approx.exists_orthogonal_frob_sub_le" in decls["Lejepa.Approx.approximate_identifiability"].uses
    assert "Lejepa.Approx.approximate_identifiability" in \
        decls["Lejepa.GaussianIdent.approximate_identifiability_gaussian"].uses
    # docstrings and comments are not mentions
    assert all(not x.endswith(".linear_identifiability") for x in decls["Lejepa.Hermite.alignLoss_eq_iff"].uses)


# ------------------------------------------------------------------- blueprint <-> map <-> Lean
def test_blueprint_is_consistent(nodes: list[blueprint.Node], rows: list[blueprint.MapRow],
                                 decls: dict[str, leansrc.Decl]) -> None:
    """Labels unique, \\lean names declared, \\maprow rows exist, \\uses labels exist."""
    assert len(nodes) >= 30
    assert blueprint.check_consistency(nodes, rows, decls) == []


def test_every_row_has_a_node_and_every_node_a_row(nodes: list[blueprint.Node],
                                                   rows: list[blueprint.MapRow]) -> None:
    used = {r for n in nodes for r in n.maprows}
    assert {r.item for r in rows} - used == set(), "theorem-map rows with no blueprint statement"
    assert used - {r.item for r in rows} == set(), "\\maprow names a row the theorem map lacks"
    assert [n.label for n in nodes if not n.maprows] == []


def test_row_lean_names_are_on_its_statements(nodes: list[blueprint.Node], rows: list[blueprint.MapRow]) -> None:
    missing = []
    for row in rows:
        tagged = {x for n in nodes if row.item in n.maprows for x in n.lean}
        missing += [(row.item, x) for x in row.lean if x not in tagged]
    assert not missing, f"Lean names of a map row that no statement of that row tags with \\lean: {missing}"


def test_each_lean_name_on_one_statement(nodes: list[blueprint.Node]) -> None:
    names = [x for n in nodes for x in n.lean]
    assert len(names) == len(set(names)), sorted({x for x in names if names.count(x) > 1})


def test_leanok_exactly_where_written_without_sorry(nodes: list[blueprint.Node],
                                                    decls: dict[str, leansrc.Decl]) -> None:
    wrong = []
    for n in nodes:
        clean = bool(n.lean) and all(decls[x].clean for x in n.lean)
        if n.leanok != clean:
            wrong.append(n.label)
        if n.proof_leanok is not None and n.proof_leanok != clean:
            wrong.append(n.label + " (proof)")
    assert not wrong, f"\\leanok disagrees with the Lean sources: {wrong}"


def test_unformalized_statements_name_their_pycheck_tests(nodes: list[blueprint.Node],
                                                          rows: list[blueprint.MapRow]) -> None:
    tests = {r.item: r.pycheck for r in rows}
    bare = [n.label for n in nodes if not n.lean and not any(tests[r] for r in n.maprows)]
    assert not bare, f"statements with no Lean and no pycheck test: {bare}"
    assert all(n.env == "numerical" for n in nodes if not n.lean and n.env != "definition")


def test_uses_are_the_lean_dependencies(nodes: list[blueprint.Node], decls: dict[str, leansrc.Decl]) -> None:
    """Between two formalized statements, \\uses (statement) and \\uses (proof) are exactly what the
    Lean statements and proofs mention (through declarations on no statement)."""
    derived = blueprint.derived_uses(nodes, decls)
    formal = {n.label for n in nodes if n.lean}
    wrong = []
    for n in nodes:
        if not n.lean:
            continue
        st, pf = derived[n.label]
        if n.uses & formal != st:
            wrong.append(f"{n.label}: statement \\uses {sorted(n.uses & formal)}, Lean says {sorted(st)}")
        if n.proof_uses & formal != pf:
            wrong.append(f"{n.label}: proof \\uses {sorted(n.proof_uses & formal)}, Lean says {sorted(pf)}")
    assert not wrong, "\n".join(wrong)


def test_paper_claims_have_statements(nodes: list[blueprint.Node]) -> None:
    """Theorems 4.1, 4.2, 4.3, Corollary 4.5, the Dirichlet appendix and the counterexamples."""
    rows_used = " ".join(r for n in nodes for r in n.maprows)
    for claim in ("Theorem 4.1", "Theorem 4.2", "Theorem 4.3", "Corollary 4.5", "Appendix (Dirichlet energy)"):
        assert claim in rows_used
    assert sum(n.env == "counterexample" for n in nodes) >= 2


def test_checkclaims_are_lejepa_check_claims(nodes: list[blueprint.Node]) -> None:
    """Each \\checkclaim starts with a claim constant of a check module (the full strings are
    checked against a real `lejepa check --json` run in tests/test_blueprint_browser.py)."""
    sources = [*(ROOT / "pycheck" / "checks").glob("*.py"), ROOT / "experiments" / "lejepa_experiments" /
               "checks_trained.py"]
    consts = {m.group(1) for p in sources
              for m in re.finditer(r'^CLAIM\w* = "([^"]+)"', p.read_text(encoding="utf-8"), re.M)}
    bad = [c for n in nodes for c in n.checkclaims if not any(c.startswith(k) for k in consts)]
    assert not bad, f"\\checkclaim strings that no check module defines: {bad}"
