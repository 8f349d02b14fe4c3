"""Lean hygiene: no escape hatches anywhere under Lejepa/ (or the lakefile), and Lejepa.lean
imports every module. These are the words that would let a Lean file 'prove' something without
a proof: `sorry`/`admit` leave a goal open, `axiom` postulates, `native_decide`/`implemented_by`/
`extern`/`unsafe`/`opaque` trust compiled code, `debug.skipKernelTC` skips the kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ["sorry", "admit", "axiom", "native_decide", "unsafe", "implemented_by", "extern",
             "opaque", "debug.skipKernelTC"]
PATTERN = re.compile(r"(?<![\w.])(" + "|".join(re.escape(w) for w in FORBIDDEN) + r")(?![\w])")


def lean_files() -> list[Path]:
    files = sorted((ROOT / "Lejepa").rglob("*.lean"))
    files += [p for p in (ROOT / "Lejepa.lean", ROOT / "lakefile.lean") if p.exists()]
    return files


def test_there_are_lean_files() -> None:
    assert (ROOT / "Lejepa.lean").exists()
    assert len(list((ROOT / "Lejepa").rglob("*.lean"))) >= 1


@pytest.mark.parametrize("path", lean_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_forbidden_words(path: Path) -> None:
    hits = [f"{path.name}:{i}: {line.strip()}" for i, line in
            enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PATTERN.search(line)]
    assert not hits, "forbidden words (reword comments too):\n" + "\n".join(hits)


def test_pattern_catches_each_word() -> None:
    for w in FORBIDDEN:
        assert PATTERN.search(f"theorem foo : True := by {w}"), w
    assert not PATTERN.search("theorem sorryless_name : True := trivial")


def test_root_imports_every_module() -> None:
    text = (ROOT / "Lejepa.lean").read_text(encoding="utf-8")
    imported = set(re.findall(r"^import\s+(\S+)", text, flags=re.M))
    modules = {"Lejepa." + ".".join(p.relative_to(ROOT / "Lejepa").with_suffix("").parts)
               for p in (ROOT / "Lejepa").rglob("*.lean")}
    assert modules, "no modules under Lejepa/"
    missing = modules - imported
    assert not missing, f"Lejepa.lean does not import: {sorted(missing)}"


def test_toolchain_and_mathlib_pinned() -> None:
    assert (ROOT / "lean-toolchain").read_text().strip() == "leanprover/lean4:v4.31.0"
    lake = (ROOT / "lakefile.lean").read_text()
    assert re.search(r'require\s+mathlib\s+from\s+git\s+"[^"]+"\s*@\s*"v4\.31\.0"', lake)
    import json

    manifest = json.loads((ROOT / "lake-manifest.json").read_text())
    revs = {p["name"]: p for p in manifest["packages"]}
    assert revs["mathlib"]["rev"] == "fabf563a7c95a166b8d7b6efca11c8b4dc9d911f"
    assert revs["mathlib"]["inputRev"] == "v4.31.0"
    assert revs["batteries"]["rev"] == "fa08db58b30eb033edcdab331bba000827f9f785"
