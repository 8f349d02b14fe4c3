"""Validation helpers for the experiments package (ValueError naming the offending key).

Re-exports :mod:`pycheck._validate` (rho, integers, non-negative numbers) and adds a choice check.
"""

from __future__ import annotations

from typing import Any, Sequence

from pycheck._validate import check_finite_array, check_int, check_nonneg, check_rho

__all__ = ["check_choice", "check_int", "check_nonneg", "check_rho", "check_finite_array"]


def check_choice(value: Any, choices: Sequence[str], name: str) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name`` and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value
