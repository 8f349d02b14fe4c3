"""Input validation shared by every pycheck module.

Each helper raises ``ValueError`` with a message that names the offending argument, so bad
input never turns into a silent NaN further down.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def check_rho(rho: Any, name: str = "rho") -> float:
    """Return ``rho`` as a float, or raise unless it is a finite number in the open interval (0, 1)."""
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number in (0, 1), got {rho!r}") from None
    if not math.isfinite(r) or not 0.0 < r < 1.0:
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {rho!r}")
    return r


def check_int(value: Any, name: str, minimum: int) -> int:
    """Return ``value`` as an int >= ``minimum``; reject bools, floats with a fraction, and the rest."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}")
    return v


def check_nonneg(value: Any, name: str) -> float:
    """Return ``value`` as a float, or raise unless it is finite and >= 0."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}") from None
    if not math.isfinite(v) or v < 0.0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def check_finite_array(a: Any, name: str) -> np.ndarray:
    """Return ``a`` as a float array, or raise if any entry is NaN or infinite."""
    arr = np.asarray(a, dtype=float)
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} non-finite value(s)")
    return arr
