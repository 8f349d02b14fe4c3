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


# ---------------------------------------------------------------------------------------------
# The GitHub Actions workflow that compiles the Lean library (`.github/workflows/lean.yml`)
# ---------------------------------------------------------------------------------------------

WORKFLOW = ROOT / ".github" / "workflows" / "lean.yml"
TOOLCHAIN_RE = re.compile(r"leanprover/lean4:(v[0-9][\w.\-]*)")


def workflow_steps() -> list[dict]:
    import yaml

    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and isinstance(doc.get("jobs"), dict) and doc["jobs"], \
        "lean.yml has no jobs"
    steps = [st for job in doc["jobs"].values() for st in job.get("steps", [])]
    assert steps, "lean.yml has no steps"
    return steps


def toolchain_version() -> str:
    m = TOOLCHAIN_RE.fullmatch((ROOT / "lean-toolchain").read_text().strip())
    assert m, "lean-toolchain is not of the form leanprover/lean4:vX.Y.Z"
    return m.group(1)


def test_workflow_builds_with_lean_action() -> None:
    """checkout, then leanprover/lean-action@v1 (elan + `lake exe cache get` + `lake build`),
    run on every push."""
    import yaml

    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads the bare key `on` as True
    assert triggers is not None and "push" in triggers, "lean.yml must run on push"
    uses = [st.get("uses", "") for st in workflow_steps()]
    assert any(u.startswith("actions/checkout@") for u in uses), uses
    assert "leanprover/lean-action@v1" in uses, uses
    assert uses.index("leanprover/lean-action@v1") > min(
        i for i, u in enumerate(uses) if u.startswith("actions/checkout@")), \
        "lean-action must run after the checkout"
    lean_step = next(st for st in workflow_steps() if st.get("uses") == "leanprover/lean-action@v1")
    opts = lean_step.get("with") or {}
    # the build and Mathlib's cache are on (lean-action's defaults; if written, not switched off)
    assert opts.get("build", True) is not False and str(opts.get("build", "true")) != "false"
    assert str(opts.get("use-mathlib-cache", "auto")) in {"auto", "true", "True"}


def test_workflow_uses_the_repository_toolchain() -> None:
    """lean-action reads `lean-toolchain`; the workflow must not install or select another one
    (no toolchain named in it other than the pinned one, no elan override, no `lean-toolchain`
    input or step that rewrites the file)."""
    text = WORKFLOW.read_text(encoding="utf-8")
    pinned = toolchain_version()
    named = set(TOOLCHAIN_RE.findall(text))
    assert named <= {pinned}, f"lean.yml names toolchain(s) {named - {pinned}} != {pinned}"
    for bad in ("elan default", "elan override", "elan toolchain install", "> lean-toolchain",
                ">lean-toolchain"):
        assert bad not in text, f"lean.yml changes the toolchain: {bad!r}"
    for st in workflow_steps():
        opts = st.get("with") or {}
        assert not any("toolchain" in str(k).lower() for k in opts), opts
        assert "lean-toolchain" not in str(st.get("run", "")), st


def test_toolchain_lakefile_and_manifest_agree() -> None:
    """The Lean release in `lean-toolchain`, the Mathlib tag required in `lakefile.lean` and the
    manifest's `inputRev` for Mathlib are the same version (Mathlib tags releases by the Lean
    version they build with)."""
    import json

    pinned = toolchain_version()
    lake = (ROOT / "lakefile.lean").read_text()
    m = re.search(r'require\s+mathlib\s+from\s+git\s+"[^"]+"\s*@\s*"([^"]+)"', lake)
    assert m, "lakefile.lean does not require mathlib at a tag"
    assert m.group(1) == pinned, (m.group(1), pinned)
    manifest = json.loads((ROOT / "lake-manifest.json").read_text())
    mathlib = next(p for p in manifest["packages"] if p["name"] == "mathlib")
    assert mathlib["inputRev"] == pinned, (mathlib["inputRev"], pinned)
    assert re.fullmatch(r"[0-9a-f]{40}", mathlib["rev"]), mathlib["rev"]


def test_toolchain_regex_rejects_a_different_pin() -> None:
    """The toolchain check would catch a workflow that names another release."""
    named = set(TOOLCHAIN_RE.findall("run: elan toolchain install leanprover/lean4:v4.30.0"))
    assert named == {"v4.30.0"} and not named <= {toolchain_version()}
