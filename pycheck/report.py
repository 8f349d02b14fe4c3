"""The rows that ``lejepa check`` prints, and how they are printed.

A :class:`CheckRow` is one numerical cross-check: the paper's claim it tests, the quantity
computed, the computed and the reference value, the tolerance, and the verdict: ``PASS``, ``FAIL``,
``UNDECIDED`` (a statistical test whose confidence interval straddles the decision threshold: the
data neither show the claim nor refute it) or ``SKIP`` (not run). Only ``FAIL`` is a failure
(``lejepa check`` exits 1 only for one). Modules under
``pycheck.checks`` each expose ``rows(**options) -> list[CheckRow]``; :func:`run_checks` gathers
them. The JSON form has the same fields as the table.
"""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class CheckRow:
    """One numerical cross-check.

    ``passed`` is decided by the producer (a comparison can be ``|value - reference| <= tol``,
    ``value <= reference + tol``, a CI containing the reference, ...); ``relation`` says which,
    in words printed in the table (e.g. ``"=="``, ``"<="``, ``"in CI"``). ``undecided`` marks a
    statistical row whose interval straddles the threshold (``passed`` is then False: the claim is
    not shown, but it is not refuted either); :func:`ci_row` sets both from a confidence interval.
    """

    claim: str
    quantity: str
    value: float
    reference: float
    tolerance: float
    passed: bool
    relation: str = "=="
    note: str = ""
    undecided: bool = False

    @property
    def verdict(self) -> str:
        """``SKIP``, ``UNDECIDED``, ``PASS`` or ``FAIL``, in that order of precedence."""
        if self.relation == "skipped":
            return "SKIP"
        if self.undecided:
            return "UNDECIDED"
        return "PASS" if self.passed else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["verdict"] = self.verdict
        for k in ("value", "reference", "tolerance"):
            v = d[k]
            d[k] = v if math.isfinite(v) else str(v)
        return d


def close_row(claim: str, quantity: str, value: float, reference: float, tolerance: float,
              note: str = "") -> CheckRow:
    """Row that passes iff ``|value - reference| <= tolerance``."""
    ok = bool(math.isfinite(value) and abs(value - reference) <= tolerance)
    return CheckRow(claim, quantity, float(value), float(reference), float(tolerance), ok, "==", note)


def le_row(claim: str, quantity: str, value: float, reference: float, tolerance: float = 0.0,
           note: str = "") -> CheckRow:
    """Row that passes iff ``value <= reference + tolerance``."""
    ok = bool(math.isfinite(value) and value <= reference + tolerance)
    return CheckRow(claim, quantity, float(value), float(reference), float(tolerance), ok, "<=", note)


def ge_row(claim: str, quantity: str, value: float, reference: float, tolerance: float = 0.0,
           note: str = "") -> CheckRow:
    """Row that passes iff ``value >= reference - tolerance``."""
    ok = bool(math.isfinite(value) and value >= reference - tolerance)
    return CheckRow(claim, quantity, float(value), float(reference), float(tolerance), ok, ">=", note)


def ci_row(claim: str, quantity: str, value: float, reference: float, lo: float, hi: float,
           relation: str = ">= (CI)", note: str = "") -> CheckRow:
    """Three-valued row for the claim "the quantity estimated by [lo, hi] is >= 0", from a
    confidence interval [lo, hi] (its level is the producer's and belongs in ``note``):

    * PASS iff lo >= 0 (the claim holds with that confidence);
    * FAIL iff hi < 0 (it is violated with that confidence);
    * UNDECIDED iff lo < 0 <= hi (the interval straddles 0: inconclusive), or a limit is not finite.

    ``value`` and ``reference`` are the point values printed in the table (e.g. err and bound for
    margin = bound - err); they do not decide the row."""
    finite = math.isfinite(lo) and math.isfinite(hi)
    ok = finite and lo >= 0
    refuted = finite and hi < 0
    return CheckRow(claim, quantity, float(value), float(reference), 0.0, bool(ok), relation, note,
                    undecided=not ok and not refuted)


def count_verdicts(rows: Iterable[CheckRow]) -> dict[str, int]:
    """``{"passed", "failed", "undecided", "skipped"}``: how many rows have each verdict."""
    verdicts = [r.verdict for r in rows]
    return {"passed": verdicts.count("PASS"), "failed": verdicts.count("FAIL"),
            "undecided": verdicts.count("UNDECIDED"), "skipped": verdicts.count("SKIP")}


def summary_line(rows: Iterable[CheckRow]) -> str:
    """``N passed, M failed`` then ``, K undecided`` and ``, J skipped`` when nonzero (the first two
    fields are always there, in that form, for scripts that read the last line)."""
    c = count_verdicts(rows)
    return (f"{c['passed']} passed, {c['failed']} failed"
            + (f", {c['undecided']} undecided" if c["undecided"] else "")
            + (f", {c['skipped']} skipped" if c["skipped"] else ""))


def _discover() -> list[str]:
    from pycheck import checks

    return list(checks.MODULES)


Progress = Callable[[int, str, "list[CheckRow] | None"], None]
"""``progress(i, module, rows)``: called with ``rows=None`` before module ``i`` runs, then with its rows."""


def run_checks(modules: Iterable[str] | None = None, *, progress: Progress | None = None,
               **options: Any) -> list[CheckRow]:
    """Run every registered check module and return all rows.

    A module that raises contributes one failing row naming the exception, so one broken
    check never hides the others. A module that needs torch when torch is not installed (a
    pycheck-only install) contributes one ``SKIP`` row instead. ``progress`` (optional) is told
    when each module starts and what it returned.
    """
    out: list[CheckRow] = []
    names = list(modules) if modules is not None else _discover()
    for i, name in enumerate(names):
        full = name if "." in name else f"pycheck.checks.{name}"
        if progress is not None:
            progress(i, full, None)
        got: list[CheckRow] = []
        try:
            mod = importlib.import_module(full)
            got = list(mod.rows(**options))
        except ModuleNotFoundError as exc:
            if exc.name != "torch":
                got = [CheckRow(full, "module raised", math.nan, math.nan, math.nan, False, "==",
                                f"{type(exc).__name__}: {exc}")]
            else:
                got = [CheckRow(full, "needs torch (pip install -e '.[train]')", math.nan, math.nan,
                                math.nan, True, "skipped", "torch is not installed")]
        except Exception as exc:  # noqa: BLE001 - reported as a failing row
            got = [CheckRow(full, "module raised", math.nan, math.nan, math.nan, False, "==",
                            f"{type(exc).__name__}: {exc}")]
        out.extend(got)
        if progress is not None:
            progress(i, full, got)
    return out


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    a = abs(x)
    return f"{x:.6g}" if 1e-4 <= a < 1e6 else f"{x:.3e}"


def format_table(rows: list[CheckRow]) -> str:
    """Plain-text table: claim | quantity | value | rel | reference | tol | verdict, then the summary
    line (:func:`summary_line`); every failing, undecided or skipped row's note (its reason) is
    listed between the table and the summary."""
    head = ("claim", "quantity", "value", "rel", "reference", "tol", "verdict")
    body = [(r.claim, r.quantity, _fmt(r.value), r.relation, _fmt(r.reference), _fmt(r.tolerance),
             r.verdict) for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    sep = "  ".join("-" * w for w in widths)
    summary = summary_line(rows)
    reasons = [f"{r.verdict}: {r.quantity}: {r.note}" for r in rows if r.verdict != "PASS" and r.note]
    return "\n".join([line(head), sep, *(line(b) for b in body), sep, *reasons, summary])


def format_json(rows: list[CheckRow]) -> str:
    """``{"rows": [...], "passed", "failed", "undecided", "skipped"}`` (each row with its ``verdict``)."""
    return json.dumps({"rows": [r.to_dict() for r in rows], **count_verdicts(rows)}, indent=2)
