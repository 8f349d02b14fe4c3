"""``lejepa blueprint --out DIR``: the web blueprint of the Lean formalization.

Builds, into ``DIR``:

* the leanblueprint web pages of ``blueprint/src`` (``plastex -c plastex.cfg web.tex``: the
  statements with their ``\\lean{}`` declarations, ``\\uses{}`` edges and ``\\leanok`` status, and
  ``dep_graph_document.html``, the clickable dependency graph);
* ``lean/<module>.html``: the Lean sources ``Lejepa/*.lean`` as static pages (Pygments' Lean 4
  lexer), one anchor per declaration (``id`` = the fully qualified name) with its docstring,
  statement and proof and links back to the blueprint statement and its graph node; every
  ``\\lean{}`` link of the blueprint points there (there is no compiled Lean, so no doc-gen4);
* beside each statement: the theorem-map row (``docs/theorems.md``) it belongs to, that row's
  pycheck tests, and the verdicts of ``lejepa check --json`` for the statement's check claims,
  from a run made at build time (about 30 s) or read from ``--check-json FILE``;
* ``lean-review.html``: the review log ``docs/lean-review.md``.

Everything is generated from the files at build time. Needs the ``blueprint`` extra
(leanblueprint, which brings plasTeX and pygraphviz; pygraphviz needs Graphviz's headers) and
``kpsewhich`` (Debian ``texlive-binaries``), through which plasTeX finds ``\\input`` files.
Serve ``DIR`` over HTTP to read it (``python -m http.server -d DIR``): browsers refuse to run the
graph page from a local file.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import leansrc

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (this module lives in ``experiments/lejepa_experiments``)."""
THM_ENVS = ("definition", "lemma", "proposition", "theorem", "corollary", "counterexample", "numerical")
DOCHOME = "LEANSOURCE"
"""``\\dochome`` of web.tex: ``LEANSOURCE/find/#doc/NAME`` is rewritten to the source pages."""
MATHJAX_CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"
MATHJAX_DEBIAN = Path("/usr/share/javascript/mathjax")
FAVICON = '<link rel="icon" href="data:,">'
"""An empty icon: without one the browser asks for /favicon.ico and logs a 404 on every page."""


class BlueprintError(Exception):
    """A problem with the inputs, reported as one line."""


# ------------------------------------------------------------------------------ the theorem map
@dataclass
class MapRow:
    """One row of ``docs/theorems.md``: ``item`` (the Paper item cell, the row's key), ``claim``,
    the ``lean`` names of its Lean column, ``proved`` (the "what is proved" cell) and its
    ``pycheck`` tests (``path::name``)."""

    item: str
    claim: str
    lean: list[str]
    proved: str
    pycheck: list[str]


def map_rows(root: Path = ROOT) -> list[MapRow]:
    """The rows of the theorem map. Cells may contain ``|`` (``ρ^|α|``), so the Lean column is found
    as the first cell after the claim that starts with a backticked ``Lejepa.`` name or ``—``."""
    rows = []
    for line in (root / "docs" / "theorems.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or re.match(r"^\|\s*-", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "Paper item":
            continue
        k = next((i for i in range(2, len(cells)) if re.match(r"^(`Lejepa\.|—)", cells[i])), None)
        if k is None:
            raise BlueprintError(f"theorem map row {cells[0]!r} has no Lean column (`Lejepa.` or —)")
        rows.append(MapRow(cells[0], "|".join(cells[1:k]), re.findall(r"`(Lejepa\.[^`]+)`", cells[k]),
                           "|".join(cells[k + 1:-1]), re.findall(r"`([\w/]+\.py::\w+)`", cells[-1])))
    return rows


# ------------------------------------------------------------------------------- the blueprint
@dataclass
class Node:
    """One labelled statement of ``content.tex``."""

    label: str
    env: str
    title: str
    lean: list[str]
    leanok: bool
    uses: set[str]
    proof_leanok: bool | None = None      # None: no proof environment
    proof_uses: set[str] = field(default_factory=set)
    maprows: list[str] = field(default_factory=list)
    checkclaims: list[str] = field(default_factory=list)
    statement: str = ""


def _args(macro: str, text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"\\" + macro + r"\{([^{}]*)\}", text)]


def _list(macro: str, text: str) -> list[str]:
    return [x.strip() for arg in _args(macro, text) for x in arg.split(",") if x.strip()]


def parse_content(path: Path) -> list[Node]:
    """The statements of a blueprint ``content.tex``, with the proof that follows each one."""
    tex = re.sub(r"(?<!\\)%.*", "", path.read_text(encoding="utf-8"))
    envs = "|".join(THM_ENVS)
    pat = re.compile(r"\\begin\{(?P<env>" + envs + r")\}(?:\[(?P<title>[^\]]*)\])?(?P<body>.*?)\\end\{(?P=env)\}"
                     r"(?P<proof>\s*\\begin\{proof\}.*?\\end\{proof\})?", re.S)
    nodes = []
    for m in pat.finditer(tex):
        body = m.group("body")
        labels = _args("label", body)
        if len(labels) != 1:
            raise BlueprintError(f"a {m.group('env')} environment has {len(labels)} labels: {body[:80]!r}")
        proof = m.group("proof")
        statement = re.sub(r"\\(label|lean|uses|maprow|checkclaim)\{[^{}]*\}|\\leanok", "", body).strip()
        nodes.append(Node(labels[0], m.group("env"), (m.group("title") or "").strip(), _list("lean", body),
                          "\\leanok" in body, set(_list("uses", body)),
                          None if proof is None else "\\leanok" in proof,
                          set(_list("uses", proof)) if proof else set(),
                          _args("maprow", body), _args("checkclaim", body), statement))
    return nodes


def derived_uses(nodes: list[Node], decls: dict[str, leansrc.Decl]) -> dict[str, tuple[set[str], set[str]]]:
    """For every node with Lean declarations: the nodes its statements mention and the further
    nodes its proofs mention (``(statement_uses, proof_uses)``), following mentions through
    declarations that belong to no node. For a definition both go to the statement."""
    owner = {name: n.label for n in nodes for name in n.lean}

    def reach(start: set[str], label: str, own: set[str]) -> set[str]:
        out: set[str] = set()
        seen: set[str] = set()
        stack = list(start)
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if x in owner and owner[x] != label:
                out.add(owner[x])
            elif x not in own:
                stack.extend(decls[x].uses)
        return out

    result = {}
    for n in nodes:
        if not n.lean:
            continue
        own = set(n.lean)
        st: set[str] = set()
        pf: set[str] = set()
        for name in n.lean:
            d = decls[name]
            st |= reach(leansrc.mentions(leansrc.Decl(**{**d.__dict__, "body": ""}), decls), n.label, own)
            pf |= reach(set(d.uses), n.label, own)
        if n.env == "definition":
            st |= pf
        result[n.label] = (st, pf - st)
    return result


# ---------------------------------------------------------------------------------- the checks
def run_check() -> dict[str, Any]:
    """``lejepa check --json`` in a subprocess (about 30 s)."""
    proc = subprocess.run([sys.executable, "-m", "lejepa_experiments", "check", "--json", "--quiet"],
                          capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise BlueprintError(f"lejepa check --json exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return dict(json.loads(proc.stdout))


def load_check(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BlueprintError(f"cannot read the check JSON {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise BlueprintError(f"{path} is not `lejepa check --json` output (no 'rows' list)")
    return data


# ------------------------------------------------------------------------------- HTML helpers
def _code(s: str) -> str:
    return f"<code>{html.escape(s)}</code>"


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return html.escape(str(x))


def _insert_after_div(page: str, open_at: int, block: str) -> str:
    """Insert ``block`` after the ``</div>`` matching the ``<div`` that starts at ``open_at``."""
    depth = 0
    for m in re.finditer(r"<div\b|</div>", page[open_at:]):
        depth += 1 if m.group(0) == "<div" else -1
        if depth == 0:
            at = open_at + m.end()
            return page[:at] + block + page[at:]
    raise BlueprintError("unbalanced <div> in the plasTeX output")


def numcheck_block(node: Node, rows: dict[str, MapRow], check: dict[str, Any] | None, source: str) -> str:
    """The HTML shown beside a statement: its theorem-map rows, their pycheck tests, the check rows."""
    parts = ['<div class="numcheck">', '<div class="numcheck_title">Theorem map and numerical checks</div>']
    tests: list[str] = []
    for item in node.maprows:
        parts.append(f'<div class="numcheck_maprow">Theorem map row (docs/theorems.md): {_code(item)}</div>')
        tests += [t for t in rows[item].pycheck if t not in tests]
    if tests:
        parts.append('<div class="numcheck_tests">pycheck: <ul>' +
                     "".join(f"<li>{_code(t)}</li>" for t in tests) + "</ul></div>")
    if node.checkclaims:
        got = [r for r in (check or {}).get("rows", []) if r.get("claim") in node.checkclaims]
        if check is None:
            parts.append('<div class="numcheck_none">lejepa check: not run for this build</div>')
        elif not got:
            parts.append(f'<div class="numcheck_none">lejepa check ({html.escape(source)}): no row for '
                         + ", ".join(_code(c) for c in node.checkclaims) + "</div>")
        else:
            n_pass = sum(r.get("verdict") == "PASS" for r in got)
            parts.append(f'<div class="numcheck_summary">lejepa check ({html.escape(source)}): '
                         f"{n_pass} of {len(got)} rows PASS</div>")
            parts.append('<table class="numcheck_table"><tr><th>claim</th><th>quantity</th><th>value</th>'
                         "<th>rel</th><th>reference</th><th>tol</th><th>verdict</th></tr>")
            for r in got:
                v = str(r.get("verdict", ""))
                parts.append(f'<tr class="verdict_{html.escape(v)}"><td>{_fmt(r.get("claim"))}</td>'
                             f'<td>{_fmt(r.get("quantity"))}</td><td>{_fmt(r.get("value"))}</td>'
                             f'<td>{_fmt(r.get("relation"))}</td><td>{_fmt(r.get("reference"))}</td>'
                             f'<td>{_fmt(r.get("tolerance"))}</td><td class="verdict">{_fmt(v)}</td></tr>')
            parts.append("</table>")
    parts.append("</div>")
    return "\n".join(parts)


CSS = """
div.numcheck { margin: .4rem 0 1rem 0; padding: .4rem .6rem; border-left: .15rem solid #5b7fa6;
  background: #f4f7fb; font-size: .85rem; }
div.numcheck_title { font-weight: bold; }
div.numcheck ul { margin: .1rem 0 .1rem 1.2rem; padding: 0; }
div.numcheck code { font-size: .78rem; overflow-wrap: anywhere; }
table.numcheck_table { border-collapse: collapse; margin-top: .3rem; font-size: .8rem; }
table.numcheck_table td, table.numcheck_table th { border: 1px solid #ccd; padding: .1rem .3rem; }
tr.verdict_PASS td.verdict { color: #176c2a; font-weight: bold; }
tr.verdict_FAIL td.verdict { color: #b00020; font-weight: bold; }
tr.verdict_SKIP td.verdict { color: #886600; }
div.dep-modal-content div.numcheck { max-height: 14rem; overflow: auto; }
"""

GRAPH_HASH_JS = """
<script type="text/javascript">
// lejepa blueprint: dep_graph_document.html#LABEL opens the statement of node LABEL.
$(function () {
  var label = decodeURIComponent(window.location.hash.slice(1));
  var modal = label && document.getElementById(label + '_modal');
  if (modal) {
    $('#statements > div').hide();
    $('.thm').hide();
    $(modal).show().children().show().children().show();
    $('#statements').show();
  }
});
</script>
"""

SOURCE_CSS = """
body { font-family: sans-serif; margin: 0 auto; max-width: 68rem; padding: 0 1rem; }
header.top { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd; padding: .4rem 0; }
section.decl { border-top: 1px solid #ddd; padding: .5rem 0; scroll-margin-top: 2.6rem; }
section.decl:target { background: #fffbe6; }
section.decl h2 { font-size: 1rem; margin: .2rem 0; }
div.docstring { white-space: pre-wrap; font-size: .9rem; background: #f6f6f6; padding: .4rem .6rem; }
div.blueprint_links { font-size: .85rem; margin: .2rem 0; }
span.status_ok { color: #176c2a; }
div.leansrc pre { margin: .3rem 0; font-size: .85rem; white-space: pre-wrap; overflow: visible; }
div.preamble pre { color: #555; }
"""


# -------------------------------------------------------------------------- Lean source pages
def source_pages(root: Path, out: Path, decls: dict[str, leansrc.Decl], nodes: list[Node],
                 page_of: dict[str, str]) -> dict[str, str]:
    """Write ``out/lean/<module>.html`` for every file under ``Lejepa/``; return name -> relative URL
    (from ``out``) of each declaration's anchor."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name

    lexer = get_lexer_by_name("lean4")
    node_of = {name: n for n in nodes for name in n.lean}
    (out / "lean").mkdir(parents=True, exist_ok=True)
    style = HtmlFormatter(style="default").get_style_defs(".highlight")
    (out / "lean" / "source.css").write_text(SOURCE_CSS + style, encoding="utf-8")
    urls: dict[str, str] = {}
    by_module: dict[str, list[leansrc.Decl]] = {}
    for d in decls.values():
        by_module.setdefault(d.module, []).append(d)
    for module, ds in sorted(by_module.items()):
        path = ds[0].path
        lines = path.read_text(encoding="utf-8").splitlines()
        rel = path.relative_to(root).as_posix()

        def code(first: int, last: int) -> str:
            text = "\n".join(lines[first - 1:last])
            fmt = HtmlFormatter(linenos="inline", linenostart=first, cssclass="highlight")
            return highlight(text, lexer, fmt)

        body = [f'<header class="top"><a href="../index.html">Blueprint</a> · '
                f'<a href="../dep_graph_document.html">Dependency graph</a> · '
                f'<a href="index.html">Lean files</a> · <b>{html.escape(rel)}</b> (not compiled here: '
                f'see <a href="../lean-review.html">the review log</a>)</header>',
                f"<h1>{html.escape(module)}</h1>"]
        pos = 1
        for d in sorted(ds, key=lambda d: d.start):
            if d.start > pos and any(x.strip() for x in lines[pos - 1:d.start - 1]):
                body.append(f'<div class="preamble leansrc">{code(pos, d.start - 1)}</div>')
            n = node_of.get(d.name)
            links = ""
            if n is not None:
                page = page_of.get(n.label, "index.html")
                links = (f'<div class="blueprint_links">Blueprint: <a class="bp_statement" '
                         f'href="../{page}#{html.escape(n.label)}">{html.escape(n.env)} '
                         f'{_code(n.label)} ({html.escape(n.title)})</a> · <a class="bp_graph" '
                         f'href="../dep_graph_document.html#{html.escape(n.label)}">graph node</a></div>')
            status = ('<span class="status_ok">written with no sorry/axiom</span>' if d.clean
                      else '<span class="status_bad">contains sorry/admit/axiom</span>')
            doc = f'<div class="docstring">{html.escape(d.doc)}</div>' if d.doc else ""
            lean_code = code(d.decl_line, d.end)
            body.append(f'<section class="decl" id="{html.escape(d.name)}"><h2>{html.escape(d.kind)} '
                        f'<code class="decl_name">{html.escape(d.name)}</code></h2>'
                        f'<div class="decl_meta">{rel}:{d.decl_line}–{d.end} · {status}</div>{links}{doc}'
                        f'<div class="leansrc">{lean_code}</div></section>')
            urls[d.name] = f"lean/{module}.html#{d.name}"
            pos = d.end + 1
        if any(x.strip() for x in lines[pos - 1:]):
            body.append(f'<div class="preamble leansrc">{code(pos, len(lines))}</div>')
        (out / "lean" / f"{module}.html").write_text(_page(module, "\n".join(body)), encoding="utf-8")
    index = "".join(f'<li><a href="{m}.html">{html.escape(m)}</a> ({len(ds)} declarations)</li>'
                    for m, ds in sorted(by_module.items()))
    (out / "lean" / "index.html").write_text(
        _page("Lean sources", f'<header class="top"><a href="../index.html">Blueprint</a></header>'
                              f"<h1>Lean sources (Lejepa/)</h1><ul>{index}</ul>"), encoding="utf-8")
    return urls


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<link rel="stylesheet" href="source.css">{FAVICON}</head><body>\n{body}\n</body></html>\n')


# ------------------------------------------------------------------------------------- build
def check_consistency(nodes: list[Node], rows: list[MapRow], decls: dict[str, leansrc.Decl]) -> list[str]:
    """Problems that make the blueprint disagree with the theorem map or the Lean sources."""
    problems = []
    labels = [n.label for n in nodes]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        problems.append(f"duplicate labels: {sorted(dup)}")
    keys = {r.item for r in rows}
    for n in nodes:
        missing = [x for x in n.lean if x not in decls]
        if missing:
            problems.append(f"{n.label}: \\lean names not declared under Lejepa/: {missing}")
        bad = [r for r in n.maprows if r not in keys]
        if bad:
            problems.append(f"{n.label}: \\maprow names no theorem-map row: {bad}")
        if not n.maprows:
            problems.append(f"{n.label}: no \\maprow")
        unknown = (n.uses | n.proof_uses) - set(labels)
        if unknown:
            problems.append(f"{n.label}: \\uses unknown labels {sorted(unknown)}")
    return problems


def build(out: Path, root: Path = ROOT, check: dict[str, Any] | None = None, check_source: str = "",
          mathjax: str = "cdn") -> dict[str, Any]:
    """Build the web blueprint into ``out`` (see the module docstring); return a summary."""
    src = root / "blueprint" / "src"
    if not (src / "content.tex").is_file():
        raise BlueprintError(f"no blueprint sources at {src}")
    if shutil.which("kpsewhich") is None:
        raise BlueprintError("kpsewhich not found: plasTeX needs it to find \\input files "
                             "(Debian: apt-get install texlive-binaries)")
    try:
        import leanblueprint  # noqa: F401
        import plasTeX  # noqa: F401
    except ModuleNotFoundError as exc:
        raise BlueprintError(f"{exc.name} is not installed: pip install -e '.[blueprint]'") from exc
    nodes = parse_content(src / "content.tex")
    rows = map_rows(root)
    decls = leansrc.load(root)
    problems = check_consistency(nodes, rows, decls)
    if problems:
        raise BlueprintError("blueprint and theorem map disagree: " + "; ".join(problems))
    out = out.resolve()
    if out.exists():
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory(prefix="lejepa-blueprint-") as tmp:
        work = Path(tmp) / "src"
        shutil.copytree(src, work)
        proc = subprocess.run([sys.executable, "-c", "import sys; from plasTeX.client import plastex; "
                               "sys.argv = ['plastex'] + sys.argv[1:]; sys.exit(plastex())",
                               "-c", "plastex.cfg", "-d", str(out), "web.tex"],
                              cwd=work, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not (out / "dep_graph_document.html").is_file():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            raise BlueprintError(f"plastex failed (exit {proc.returncode}): " + " / ".join(tail))
        lean_decls = (Path(tmp) / "lean_decls")
        if lean_decls.is_file():
            shutil.copy(lean_decls, out / "lean_decls")
    pages = sorted(p for p in out.glob("*.html") if p.name != "dep_graph_document.html")
    page_of: dict[str, str] = {}
    for p in pages:
        for label in re.findall(r'_thmwrapper[^"]*" id="([^"]+)"', p.read_text(encoding="utf-8")):
            page_of[label] = p.name
    urls = source_pages(root, out, decls, nodes, page_of)
    rowmap = {r.item: r for r in rows}
    blocks = {n.label: numcheck_block(n, rowmap, check, check_source) for n in nodes}
    for p in [*pages, out / "dep_graph_document.html"]:
        page = p.read_text(encoding="utf-8")
        page = re.sub(re.escape(DOCHOME) + r"/find/#doc/([^\"'<\s]+)",
                      lambda m: urls.get(html.unescape(m.group(1)), "lean/index.html"), page)
        for label, block in blocks.items():
            if p.name == "dep_graph_document.html":
                m = re.search(r'id="' + re.escape(label) + r'_modal"', page)
                if m:
                    at = page.find('<div class="thm_thmcontent">', m.end())
                    page = _insert_after_div(page, at, block)
            else:
                m = re.search(r'_thmwrapper[^"]*" id="' + re.escape(label) + '"', page)
                if m:
                    at = page.find("_thmcontent", m.end())
                    at = page.rfind("<div", 0, at)
                    page = _insert_after_div(page, at, block)
        if p.name == "dep_graph_document.html":
            page = page.replace("</body>", GRAPH_HASH_JS + "</body>")
        page = _mathjax(page, mathjax, out).replace("<head>", "<head>\n" + FAVICON, 1)
        p.write_text(page, encoding="utf-8")
    with open(out / "styles" / "extra_styles.css", "a", encoding="utf-8") as fh:
        fh.write(CSS)
    review = root / "docs" / "lean-review.md"
    text = review.read_text(encoding="utf-8") if review.is_file() else "(docs/lean-review.md is missing)"
    (out / "lean-review.html").write_text(
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Lean review log</title>' + FAVICON + '</head><body>'
        '<p><a href="index.html">Blueprint</a> · docs/lean-review.md, the review log of the Lean files '
        "(not compiled in this repository)</p><pre style=\"white-space: pre-wrap\">"
        + html.escape(text) + "</pre></body></html>\n", encoding="utf-8")
    summary = {"out": str(out), "nodes": len(nodes), "leanok": sum(n.leanok for n in nodes),
               "lean_names": sum(len(n.lean) for n in nodes), "source_pages": len(list((out / "lean").glob("Lejepa.*.html"))),
               "check": check_source if check is not None else None,
               "built": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    (out / "blueprint-build.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _mathjax(page: str, mode: str, out: Path) -> str:
    """Point the pages' MathJax at the CDN (``cdn``), at Debian's libjs-mathjax linked into ``out``
    (``local``, for a machine without network), or drop it (``none``: formulas stay as TeX)."""
    tag = f'<script type="text/javascript" src="{MATHJAX_CDN}">'
    if mode == "cdn":
        return page
    if mode == "none":
        return page.replace(tag, '<script type="text/javascript">')
    target = out / "mathjax"
    if not target.exists():
        os.symlink(MATHJAX_DEBIAN, target, target_is_directory=True)
    return page.replace(tag, '<script type="text/javascript" src="mathjax/MathJax.js?config=TeX-AMS_CHTML">')


# ----------------------------------------------------------------------------------- the CLI
def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (replaced)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check-json", metavar="FILE", help="verdicts from this `lejepa check --json` output "
                   "instead of running the check (about 30 s)")
    g.add_argument("--no-check", action="store_true", help="no lejepa check verdicts on the pages")
    p.add_argument("--mathjax", choices=("cdn", "local", "none"), default="cdn",
                   help="cdn (default): MathJax from jsdelivr; local: Debian's libjs-mathjax "
                        f"({MATHJAX_DEBIAN}), linked into DIR; none: formulas stay as TeX")
    p.add_argument("--root", default=str(ROOT), help="repository root (default: this checkout)")


def run(args: argparse.Namespace) -> int:
    root = Path(args.root)
    try:
        if args.mathjax == "local" and not (MATHJAX_DEBIAN / "MathJax.js").is_file():
            raise BlueprintError(f"--mathjax local needs {MATHJAX_DEBIAN}/MathJax.js "
                                 "(Debian: apt-get install libjs-mathjax)")
        check, source = None, ""
        if args.check_json:
            check, source = load_check(Path(args.check_json)), f"from {args.check_json}"
        elif not args.no_check:
            print("running lejepa check --json (about 30 s) ...", file=sys.stderr)
            check = run_check()
            source = "run at build time " + _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        summary = build(Path(args.out), root, check, source, args.mathjax)
    except BlueprintError as exc:
        print(f"lejepa blueprint: {exc}", file=sys.stderr)
        return 2
    print(f"blueprint: {summary['nodes']} statements ({summary['leanok']} \\leanok), "
          f"{summary['lean_names']} Lean names, {summary['source_pages']} source pages -> {summary['out']}")
    print(f"read it with: python -m http.server -d {summary['out']} 8000  (then http://127.0.0.1:8000/)")
    return 0
