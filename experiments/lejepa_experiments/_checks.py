"""Validation helpers for the experiments package (ValueError naming the offending key).

Re-exports :mod:`pycheck._validate` (rho, integers, non-negative numbers) and adds a choice check.
"""

from __future__ import annotations

from typing import Any, Sequence

from pycheck._validate import check_finite_array, check_int, check_nonneg, check_rho

__all__ = ["check_choice", "check_int", "check_nonneg", "check_rho", "check_finite_array", "is_safe_name"]


def check_choice(value: Any, choices: Sequence[str], name: str) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name`` and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def is_safe_name(v: Any) -> bool:
    """A non-empty string usable as a file name stem: no path separators or NUL, not hidden.
    (Here rather than in :mod:`.config`, which imports torch, so that the sweep and reproduce
    argument parsers stay light.)"""
    return isinstance(v, str) and bool(v) and not any(c in v for c in "/\\\0") and not v.startswith(".")
