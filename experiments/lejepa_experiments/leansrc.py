"""Read the Lean sources under ``Lejepa/`` without a Lean toolchain: declarations, their docstrings,
statements and proofs, and which declaration's proof mentions which.

Used by the blueprint (``lejepa blueprint``) and by ``tests/test_theorem_map.py``. Nothing here is
a Lean elaborator: the parse is line based and relies on the repository's layout (every command
starts in column 0, bodies are indented), which ``tests/test_theorem_map.py`` exercises on every
file. Name resolution for the dependency edges follows Lean's rules for the cases that occur here
(the current namespace and its parents, then the ``open`` namespaces); a mention that resolves to
nothing under ``Lejepa`` is ignored (Mathlib, local variables, field notation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("theorem", "lemma", "def", "abbrev", "structure", "class", "inductive", "instance")
_DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)*(?:(?:private|protected|noncomputable|partial|nonrec)\s+)*"
    r"(?P<kind>" + "|".join(KINDS) + r")\s+(?P<name>[^\s:({\[]+)")
_IDENT = re.compile(r"(?<![\w.'!?])[^\W\d][\w'!?ₐ-ₜ₀-₉]*(?:\.[^\W\d][\w'!?ₐ-ₜ₀-₉]*)*")
_FORBIDDEN = re.compile(r"\b(?:sorry|admit|axiom)\b")


@dataclass
class Decl:
    """One declaration: ``name`` fully qualified, ``kind`` (theorem, def, ...), the 1-based line
    range ``[start, end]`` of its text (docstring and attributes included), ``decl_line`` the line of
    the keyword, ``doc`` the docstring (markers stripped), ``statement`` (up to ``:=``/``where``),
    ``body`` (the rest), ``uses`` the ``Lejepa`` declarations its statement and proof mention."""

    name: str
    kind: str
    module: str
    path: Path
    start: int
    decl_line: int
    end: int
    doc: str
    statement: str
    body: str
    namespace: str
    opens: tuple[str, ...]
    uses: set[str] = field(default_factory=set)

    @property
    def text(self) -> str:
        """The declaration as written (docstring, attributes, statement and proof)."""
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return "\n".join(lines[self.start - 1:self.end])

    @property
    def clean(self) -> bool:
        """No ``sorry``/``admit``/``axiom`` in the code (comments and docstring excluded)."""
        return not _FORBIDDEN.search(_strip_comments(self.statement + "\n" + self.body))

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


def _strip_comments(code: str) -> str:
    """``code`` with ``--`` line comments, (nested) ``/- -/`` block comments and string literals
    blanked out, so that identifiers in them are not taken for mentions."""
    out: list[str] = []
    i, depth, n = 0, 0, len(code)
    while i < n:
        if depth:
            if code.startswith("/-", i):
                depth += 1
                i += 2
            elif code.startswith("-/", i):
                depth -= 1
                i += 2
            else:
                out.append("\n" if code[i] == "\n" else " ")
                i += 1
        elif code.startswith("/-", i):
            depth = 1
            i += 2
        elif code.startswith("--", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code[i] == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def _split_statement(code: str) -> tuple[str, str]:
    """Split a declaration's code (docstring removed) at the first ``:=``/``where``/``|`` outside
    brackets: statement, body."""
    depth = 0
    blank = _strip_comments(code)
    for m in re.finditer(r"[()\[\]{}⟨⟩]|:=|\bwhere\b|\n\s*\|", blank):
        tok = m.group(0)
        if tok in "([{⟨":
            depth += 1
        elif tok in ")]}⟩":
            depth -= 1
        elif depth == 0:
            return code[:m.start()].rstrip(), code[m.start():]
    return code.rstrip(), ""


def parse_file(path: Path, module: str) -> list[Decl]:
    """The declarations of one ``.lean`` file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    decls: list[Decl] = []
    scopes: list[tuple[str, str]] = []          # (kind, name) for namespace / section
    opens: list[list[str]] = [[]]
    pending_start: int | None = None            # first line of a docstring / attribute prefix
    depth = 0                                   # block-comment depth at the start of each line
    current: Decl | None = None

    def namespace() -> str:
        return ".".join(name for kind, name in scopes if kind == "namespace")

    def close(at: int) -> None:
        nonlocal current
        if current is None:
            return
        end = at
        while end > current.decl_line and not lines[end - 1].strip():
            end -= 1
        current.end = end
        code = "\n".join(lines[current.decl_line - 1:end])
        current.statement, current.body = _split_statement(code)
        decls.append(current)
        current = None

    for no, line in enumerate(lines, 1):
        starts_in_comment = depth > 0
        stripped = _strip_comments(line) if not starts_in_comment else ""
        # block-comment depth after this line
        k = 0
        while k < len(line):
            if line.startswith("/-", k):
                depth += 1
                k += 2
            elif line.startswith("-/", k) and depth:
                depth -= 1
                k += 2
            elif line.startswith("--", k) and not depth:
                break
            else:
                k += 1
        if starts_in_comment or not line or line[0].isspace():
            continue
        # a column-0 line: a new command (or a docstring / comment opening one)
        if line.startswith("/--") or line.startswith("@["):
            close(no - 1)
            if pending_start is None:
                pending_start = no
            if not _DECL.match(line):
                continue
        elif line.startswith("--") or line.startswith("/-"):
            close(no - 1)
            pending_start = None
            continue
        m = _DECL.match(line)
        if m and not starts_in_comment:
            close(no - 1)
            name = m.group("name")
            ns = namespace()
            full = name if name.startswith("_root_.") else ".".join(x for x in (ns, name) if x)
            start = pending_start if pending_start is not None else no
            doc = ""
            if pending_start is not None:
                pre = "\n".join(lines[pending_start - 1:no - 1]) + "\n" + line
                dm = re.search(r"/--(.*?)-/", pre, re.S)
                doc = _dedent(dm.group(1)) if dm else ""
            current = Decl(full.removeprefix("_root_."), m.group("kind"), module, path, start, no,
                           no, doc, "", "", ns, tuple(x for o in opens for x in o))
            pending_start = None
            continue
        close(no - 1)
        pending_start = None
        words = stripped.split()
        if not words:
            continue
        if words[0] == "namespace":
            scopes.append(("namespace", words[1]))
            opens.append([])
        elif words[0] == "section" or words[:2] == ["noncomputable", "section"]:
            scopes.append(("section", words[-1] if words[-1] != "section" else ""))
            opens.append([])
        elif words[0] == "end":
            if scopes:
                kind, name = scopes.pop()
                opens.pop()
                # `end A.B` closes a namespace opened as `namespace A.B`
        elif words[0] == "open" and words[-1] != "in":
            names = [w for w in re.sub(r"\([^)]*\)|\bscoped\b|\bin\b", " ", " ".join(words[1:])).split()]
            opens[-1].extend(names)
    close(len(lines))
    # qualify `open X` relative to the enclosing namespaces is not needed here: every `open` of a
    # Lejepa namespace in these files is written fully qualified.
    return decls


def _dedent(doc: str) -> str:
    lines = doc.strip("\n").splitlines()
    if not lines:
        return ""
    first, rest = lines[0].strip(), lines[1:]
    indent = min((len(x) - len(x.lstrip()) for x in rest if x.strip()), default=0)
    return "\n".join([first, *(x[indent:] for x in rest)]).strip()


def load(root: Path) -> dict[str, Decl]:
    """Every declaration under ``root/Lejepa`` by fully qualified name, with ``uses`` filled in."""
    decls: dict[str, Decl] = {}
    for path in sorted((root / "Lejepa").rglob("*.lean")):
        module = "Lejepa." + ".".join(path.relative_to(root / "Lejepa").with_suffix("").parts)
        for d in parse_file(path, module):
            decls[d.name] = d
    for d in decls.values():
        d.uses = mentions(d, decls)
    return decls


def resolve(ident: str, d: Decl, decls: dict[str, Decl]) -> str | None:
    """The ``Lejepa`` declaration that ``ident``, written inside ``d``, names (or ``None``)."""
    parts = d.namespace.split(".") if d.namespace else []
    prefixes = [".".join(parts[:k]) for k in range(len(parts), -1, -1)]
    prefixes += [o for o in d.opens if o not in prefixes]
    for pre in prefixes:
        cand = f"{pre}.{ident}" if pre else ident
        if cand in decls:
            return cand
    # `foo.bar` where `foo` is a local hypothesis and `bar` a lemma: not a mention; but
    # `Decl.lemma` written through a namespace alias resolves above.
    return None


def mentions(d: Decl, decls: dict[str, Decl]) -> set[str]:
    """The ``Lejepa`` declarations named in ``d``'s statement and proof (not its docstring)."""
    code = _strip_comments(d.statement + "\n" + d.body)
    out: set[str] = set()
    for m in _IDENT.finditer(code):
        ident = m.group(0)
        # try the whole dotted name, then drop trailing components (`foo.symm`, `h.le`)
        pieces = ident.split(".")
        for k in range(len(pieces), 0, -1):
            hit = resolve(".".join(pieces[:k]), d, decls)
            if hit is not None:
                if hit != d.name:
                    out.add(hit)
                break
    return out
