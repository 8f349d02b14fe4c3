"""Probabilists' Hermite polynomials He_n, their normalised form, multi-indices, and an exact version.

Definitions used throughout pycheck (z ~ N(0, 1), phi the standard normal density):

* ``He_0 = 1``, ``He_1(x) = x``, ``He_{k+1}(x) = x He_k(x) - k He_{k-1}(x)``;
  orthogonality ``E[He_m(z) He_n(z)] = n! delta_mn``.
* normalised form ``h_n = He_n / sqrt(n!)``, orthonormal in L2(N(0, 1)), with the recurrence
  ``h_{k+1}(x) = (x h_k(x) - sqrt(k) h_{k-1}(x)) / sqrt(k + 1)``. It never forms ``n!`` or
  ``He_n`` itself, so it runs to n = 150 (and far beyond) without overflow; Cramer's inequality
  gives ``|h_n(x)| <= K pi^(1/4) exp(x^2/4)`` with ``K = 1.086435`` (see :data:`CRAMER_K`).
* multi-index form on R^n: ``He_alpha(x) = prod_i He_{alpha_i}(x_i)``, ``alpha! = prod alpha_i!``.

Why hand-written: ``numpy.polynomial.hermite_e.hermeval`` evaluates one series by Clenshaw's
algorithm, but it does not give all degrees 0..N at once (which the spectral code needs, at the
cost of one recurrence), nor the normalised form. The tests check both against ``hermeval`` and
against sympy's ``hermite_prob``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from pycheck._validate import check_int

if TYPE_CHECKING:  # sympy is imported inside the exact functions: it costs ~0.15-0.2 s per import
    import sympy as sp

#: Cramer's constant: for the orthonormal physicists' functions |H_n(x) e^{-x^2/2}| / (2^n n! sqrt(pi))^{1/2}
#: <= K; translated to probabilists' form this is |He_n(x)| / sqrt(n!) <= K pi^{1/4} e^{x^2/4}.
CRAMER_K = 1.086435


def _as_array(x: object) -> np.ndarray:
    return np.asarray(x, dtype=float)


def hermite_e(n: int, x: object) -> np.ndarray:
    """He_n(x), probabilists' Hermite polynomial, by the three-term recurrence.

    ``He_{k+1}(x) = x He_k(x) - k He_{k-1}(x)``; vectorised over array-like ``x`` (returns an
    array of x's shape; a 0-d array for scalar x). Exact in floating point for integer x of
    moderate size; He_n itself grows like sqrt(n!) so use :func:`hermite_e_normalized` for large n.
    """
    n = check_int(n, "n", 0)
    x = _as_array(x)
    prev = np.ones_like(x)
    if n == 0:
        return prev
    cur = x.copy()
    for k in range(1, n):
        prev, cur = cur, x * cur - k * prev
    return cur


def _hermite_table(max_n: int, x: object, normalized: bool) -> np.ndarray:
    """Rows 0..max_n of the (optionally normalised) three-term recurrence, shape ``(max_n + 1, *x.shape)``."""
    max_n = check_int(max_n, "max_n", 0)
    x = _as_array(x)
    out = np.empty((max_n + 1, *x.shape))
    out[0] = 1.0
    if max_n >= 1:
        out[1] = x
    for k in range(1, max_n):
        if normalized:
            out[k + 1] = (x * out[k] - math.sqrt(k) * out[k - 1]) / math.sqrt(k + 1)
        else:
            out[k + 1] = x * out[k] - k * out[k - 1]
    return out


def hermite_e_all(max_n: int, x: object) -> np.ndarray:
    """All of He_0(x), ..., He_max_n(x): array of shape ``(max_n + 1, *x.shape)``."""
    return _hermite_table(max_n, x, normalized=False)


def hermite_e_normalized_all(max_n: int, x: object) -> np.ndarray:
    """h_0(x), ..., h_max_n(x) with ``h_n = He_n / sqrt(n!)``: shape ``(max_n + 1, *x.shape)``.

    Recurrence ``h_{k+1} = (x h_k - sqrt(k) h_{k-1}) / sqrt(k+1)``; orthonormal under N(0, 1).
    """
    return _hermite_table(max_n, x, normalized=True)


def hermite_e_normalized(n: int, x: object) -> np.ndarray:
    """h_n(x) = He_n(x) / sqrt(n!) (orthonormal under N(0, 1)); safe to n = 150 and beyond."""
    n = check_int(n, "n", 0)
    return hermite_e_normalized_all(n, x)[n]


def _check_points(x: object, dim: int | None = None) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        raise ValueError("x must have a last axis of length dim (points in R^dim), got a scalar")
    if dim is not None and arr.shape[-1] != dim:
        raise ValueError(f"x must have last axis of length {dim}, got shape {arr.shape}")
    return arr


def hermite_e_multi(alpha: Sequence[int], x: object, normalized: bool = False) -> np.ndarray:
    """He_alpha(x) = prod_i He_{alpha_i}(x_i) on R^n (or prod_i h_{alpha_i}(x_i) if ``normalized``).

    ``x`` has shape ``(..., n)`` with ``n = len(alpha)``; the result has shape ``x.shape[:-1]``.
    """
    alpha = [check_int(a, "alpha[i]", 0) for a in alpha]
    if not alpha:
        raise ValueError("alpha must have at least one entry")
    x = _check_points(x, len(alpha))
    out = np.ones(x.shape[:-1])
    for i, a in enumerate(alpha):
        out = out * (hermite_e_normalized(a, x[..., i]) if normalized else hermite_e(a, x[..., i]))
    return out


def multi_factorial(alpha: Sequence[int]) -> int:
    """alpha! = prod_i alpha_i! (exact integer)."""
    return math.prod(math.factorial(int(a)) for a in alpha)


def multi_indices(dim: int, degree: int) -> Iterator[tuple[int, ...]]:
    """Every alpha in N^dim with |alpha| = alpha_1 + ... + alpha_dim == degree (lexicographic, descending)."""
    dim = check_int(dim, "dim", 1)
    degree = check_int(degree, "degree", 0)
    if dim == 1:
        yield (degree,)
        return
    for first in range(degree, -1, -1):
        for rest in multi_indices(dim - 1, degree - first):
            yield (first, *rest)


def multi_indices_upto(dim: int, max_degree: int) -> list[tuple[int, ...]]:
    """All alpha with |alpha| <= max_degree, ordered by total degree; there are C(dim + D, D)."""
    return [a for d in range(max_degree + 1) for a in multi_indices(dim, d)]


def hermite_e_sympy(n: int, x: sp.Symbol | None = None) -> sp.Expr:
    """He_n as an exact sympy polynomial in ``x`` (default symbol ``x``), built by the recurrence.

    Independent of numpy; the tests compare it with sympy's own ``hermite_prob``.
    """
    import sympy as sp

    n = check_int(n, "n", 0)
    x = sp.Symbol("x") if x is None else x
    return _sympy_he(n, x)


@lru_cache(maxsize=512)
def _sympy_he(n: int, x: sp.Symbol) -> sp.Expr:
    import sympy as sp

    prev, cur = sp.Integer(1), x
    if n == 0:
        return prev
    for k in range(1, n):
        prev, cur = cur, sp.expand(x * cur - k * prev)
    return cur


def hermite_e_at_zero(n: int) -> int:
    """He_n(0) exactly: 0 for odd n, (-1)^k (2k-1)!! for n = 2k (from the recurrence at x = 0)."""
    n = check_int(n, "n", 0)
    if n % 2:
        return 0
    k = n // 2
    return (-1) ** k * math.prod(range(1, 2 * k, 2))
