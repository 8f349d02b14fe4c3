"""SIGReg's population values, and when the penalised LeJEPA objective prefers collapse.

SIGReg as the paper uses it (Epps-Pulley statistic on random unit slices ``a_s``): knots
``t_k = k t_max / (K - 1)``, k = 0..K-1, weights ``w_k = 2 trap_k exp(-t_k^2 / 2)`` (trapezoid rule on
[0, t_max], doubled for t < 0), and for a batch ``h_1..h_m``

    T(h) = m * mean_s sum_k w_k | phi_s(t_k) - g_k |^2,   phi_s(t) = (1/m) sum_j exp(i t a_s.h_j),   g_k = exp(-t_k^2/2).

Facts used here (each checked in ``pycheck/tests/test_sigreg.py``):

1. **Null mean.** If the rows are iid N(0, I), every ``a_s.h_j`` is N(0, 1) and
   ``m E|phi(t) - g|^2 = (1 + e^{-2t^2})/2 - e^{-t^2} + (1 - e^{-2t^2})/2 = 1 - e^{-t^2}``, so
   ``E T = N0 := sum_k w_k (1 - e^{-t_k^2})`` for every m (:func:`null_mean`).
2. **Collapse.** For a constant embedding ``h_j = c`` each slice sees one value ``x = a_s.c`` and
   ``|e^{itx} - g|^2 = 1 - 2 g cos(tx) + g^2 >= (1 - g)^2``, with equality at x = 0; so the smallest
   SIGReg of a constant embedding is ``m S0``, ``S0 := sum_k w_k (1 - g_k)^2``, at c = 0
   (:func:`collapse_value`, :func:`constant_statistic`).
3. **Penalised objective.** Training minimises ``J = lam E T + (1 - lam) E||h(z') - h(z)||^2``. The
   identifiable encoders ``h = Qz`` have ``J = lam N0 + (1 - lam) 2 (1 - rho) n`` (fact 1 and Theorem 4.1's
   minimum of the alignment term); the collapsed ``h = 0`` has ``J = lam m S0``. Collapse has the
   smaller objective exactly when ``lam < lam* = A / (A + m S0 - N0)``, ``A = 2 (1 - rho) n``
   (:func:`collapse_threshold`). Theorem 4.1 is about minimisers under the constraint h(z) ~ N(0, I); the
   penalised objective meets that constraint only approximately. Its minimum is never exactly at
   ``h = Qz`` (fact 4: shrunk encoders do better for every lam < 1), and below ``lam*`` even the
   constant encoder beats every ``h = Qz``. With the defaults (17 knots on [0, 3], batch m = 256, n = 2) ``lam*`` is 0.019
   at rho = 0.5, 0.0078 at 0.8, 0.0039 at 0.9 and 0.0020 at 0.95, in our units. (The paper's recommended
   range, lam 1e-3 to 1e-2 with rho 0.8 to 0.95, is in the authors' units, where the threshold is
   below 1e-3: fact 5.)

4. **Scaled encoders.** For ``h = s Q z`` every projection is N(0, s^2), so (as in fact 1)
   ``E T = sum_k w_k [ m (e^{-s^2 t_k^2/2} - g_k)^2 + 1 - e^{-s^2 t_k^2} ]`` (:func:`expected_statistic_scaled`;
   s = 0 gives ``m S0``, s = 1 gives ``N0``) and ``J(s) = lam E T + (1 - lam) 2 (1 - rho) n s^2``
   (:func:`scaled_objective`). Its minimiser over s is below 1 for every lam < 1 (the shrinkage of a
   finite penalty) and is 0 only for lam well below ``lam*`` (at rho = 0.9, n = 2, m = 256: s = 0 for
   lam = 0.001, s = 0.43 at 0.002, 0.54 at 0.003): ``lam*`` marks where the identifiable encoders stop
   beating collapse, not where collapse becomes the best scaled encoder.

5. **The authors' units.** The authors' code concatenates the two views (2m samples) before the
   test, ``T_cat = 2m mean_s sum_k w_k |phi_s(t_k) - g_k|^2`` over all 2m projections, and its
   alignment term is ``mean_{v,i,j} (hbar_ij - h_vij)^2 = E||h(z') - h(z)||^2 / (4n)``. For ``h = Qz`` the
   2m projections are m iid pairs ``(x, x')`` of N(0, 1) with correlation ``rho`` (the pair's
   correlation), and counting the ``(2m)^2`` ordered sample pairs (2m equal, 2m within a pair with
   ``E e^{it(x - x')} = e^{-(1 - rho) t^2}``, the rest independent):
   ``E T_cat = N_rho := sum_k w_k (1 + e^{-(1 - rho) t_k^2} - 2 e^{-t_k^2})`` for every m
   (:func:`pair_null_mean`; rho -> 0 gives N0, rho -> 1 gives 2 N0). The constant ``h = 0`` has
   ``T_cat = 2m S0``. So with ``J_a = lam T_cat + (1 - lam) L / (4n)`` collapse beats every ``h = Qz``
   exactly when ``lam < lam*_a = A' / (A' + 2m S0 - N_rho)``, ``A' = (1 - rho) / 2``
   (:func:`collapse_threshold_authors`), which does not depend on n: 0.00049 / 0.00024 / 0.00012 at
   rho = 0.8 / 0.9 / 0.95 (m = 256 per view), below the authors' recommended 1e-3 to 1e-2.

   **Conversion.** SIGReg's weight relative to the alignment term is ``q T / L`` in our units
   (``q = lam / (1 - lam)``) and ``q_a 4n T_cat / L`` in theirs, so the two objectives weigh the terms
   alike when ``q = 4 n c q_a`` with ``c = T_cat / T`` (T = our per-view statistic, averaged over the
   views): ``c = N_rho / N0`` (between 1 and 2) at the null, ``c = 2`` far from it (a constant
   embedding: ``2m S0`` against ``m S0``). :func:`lam_to_authors` and :func:`lam_from_authors` map a
   lam for a given c; :func:`conversion_factors` gives the two limits. For small lam our lam is about
   4n to 8n times theirs.

Plain numpy: the statistic is a finite sum, nothing to take from a library.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import check_int, check_rho

__all__ = ["check_knots", "sigreg_knots", "null_mean", "slice_statistic", "collapse_value", "constant_statistic",
           "expected_statistic_scaled", "scaled_objective", "collapse_threshold", "pair_null_mean",
           "collapse_threshold_authors", "conversion_factors", "lam_to_authors", "lam_from_authors"]


def check_knots(knots: int, t_max: float) -> None:
    """Raise ``ValueError`` unless ``knots`` is an integer >= 2 and ``t_max`` a finite number > 0."""
    if isinstance(knots, bool) or not isinstance(knots, (int, np.integer)) or knots < 2:
        raise ValueError(f"knots must be an integer >= 2, got {knots!r}")
    if isinstance(t_max, bool) or not isinstance(t_max, (int, float)) or not math.isfinite(t_max) or t_max <= 0:
        raise ValueError(f"t_max must be a finite number > 0, got {t_max!r}")


def sigreg_knots(knots: int = 17, t_max: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """Knots ``t_k = k t_max/(K-1)`` and weights ``w_k = 2 trap_k exp(-t_k^2/2)`` (float64 arrays)."""
    check_knots(knots, t_max)
    t = np.linspace(0.0, float(t_max), knots)
    trap = np.full(knots, float(t_max) / (knots - 1))
    trap[0] = trap[-1] = trap[0] / 2
    return t, 2.0 * trap * np.exp(-t ** 2 / 2)


def null_mean(knots: int = 17, t_max: float = 3.0) -> float:
    """``N0 = sum_k w_k (1 - exp(-t_k^2))``: the mean of SIGReg over iid N(0, I) batches, any m."""
    t, w = sigreg_knots(knots, t_max)
    return float(np.sum(w * (1.0 - np.exp(-t ** 2))))


def slice_statistic(x: np.ndarray, knots: int = 17, t_max: float = 3.0) -> np.ndarray:
    """SIGReg of one slice from its definition, ``m sum_k w_k |mean_j exp(i t_k x_j) - g_k|^2``, for
    projections ``x`` of shape ``(..., m)``; returns shape ``(...)``."""
    x = np.asarray(x, dtype=float)
    if x.ndim < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must have a last axis of samples, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    t, w = sigreg_knots(knots, t_max)
    phi = np.exp(1j * x[..., None] * t).mean(axis=-2)
    return x.shape[-1] * np.sum(w * np.abs(phi - np.exp(-t ** 2 / 2)) ** 2, axis=-1)


def constant_statistic(x: np.ndarray | float, knots: int = 17, t_max: float = 3.0) -> np.ndarray:
    """SIGReg / m of one slice on which every sample equals ``x``:
    ``sum_k w_k (1 - 2 g_k cos(t_k x) + g_k^2)``, vectorised over ``x``."""
    t, w = sigreg_knots(knots, t_max)
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    g = np.exp(-t ** 2 / 2)
    return np.sum(w * (1.0 - 2.0 * g * np.cos(np.multiply.outer(x, t)) + g ** 2), axis=-1)


def collapse_value(knots: int = 17, t_max: float = 3.0) -> float:
    """``S0 = sum_k w_k (1 - exp(-t_k^2/2))^2``: the least SIGReg / m of a constant embedding (at 0)."""
    t, w = sigreg_knots(knots, t_max)
    return float(np.sum(w * (1.0 - np.exp(-t ** 2 / 2)) ** 2))


def expected_statistic_scaled(s: np.ndarray | float, m: int, knots: int = 17, t_max: float = 3.0) -> np.ndarray:
    """``E T`` for ``h = s Q z``, z ~ N(0, I), batch size m (fact 4), vectorised over ``s``."""
    m = check_int(m, "m", 1)
    s = np.asarray(s, dtype=float)
    if not np.all(np.isfinite(s)):
        raise ValueError("s must be finite")
    t, w = sigreg_knots(knots, t_max)
    st2 = np.multiply.outer(s ** 2, t ** 2)
    g = np.exp(-t ** 2 / 2)
    return np.sum(w * (m * (np.exp(-st2 / 2) - g) ** 2 + 1.0 - np.exp(-st2)), axis=-1)


def scaled_objective(s: np.ndarray | float, lam: float, rho: float, n: int, m: int,
                     knots: int = 17, t_max: float = 3.0) -> np.ndarray:
    """``J(s) = lam E T(s Q z) + (1 - lam) 2 (1 - rho) n s^2``: the expected penalised objective of ``h = s Q z``."""
    rho = check_rho(rho)
    n = check_int(n, "n", 1)
    if not (isinstance(lam, (int, float)) and not isinstance(lam, bool) and 0.0 <= lam <= 1.0):
        raise ValueError(f"lam must be a number in [0, 1], got {lam!r}")
    s = np.asarray(s, dtype=float)
    return lam * expected_statistic_scaled(s, m, knots, t_max) + (1.0 - lam) * 2.0 * (1.0 - rho) * n * s ** 2


def collapse_threshold(rho: float, n: int, m: int, knots: int = 17, t_max: float = 3.0) -> float:
    """``lam* = A / (A + m S0 - N0)``, ``A = 2 (1 - rho) n``: below it the collapsed encoder ``h = 0``
    has a smaller penalised LeJEPA objective than every ``h = Qz`` (batch size ``m``, dimension ``n``)."""
    rho = check_rho(rho)
    n = check_int(n, "n", 1)
    m = check_int(m, "m", 1)
    a = 2.0 * (1.0 - rho) * n
    b = m * collapse_value(knots, t_max) - null_mean(knots, t_max)
    if b <= 0:
        raise ValueError(f"m = {m} is too small: m S0 <= N0, so collapse costs no more SIGReg than N(0, I) "
                         "and beats h = Qz for every lam")
    return a / (a + b)


# --------------------------------------------------------------------- the authors' units (fact 5)

def pair_null_mean(rho: float, knots: int = 17, t_max: float = 3.0) -> float:
    """``N_rho = sum_k w_k (1 + exp(-(1 - rho) t_k^2) - 2 exp(-t_k^2))``: the mean of SIGReg over the
    concatenation of m iid pairs of N(0, I) vectors with correlation ``rho`` within a pair (any m)."""
    rho = check_rho(rho)
    t, w = sigreg_knots(knots, t_max)
    return float(np.sum(w * (1.0 + np.exp(-(1.0 - rho) * t ** 2) - 2.0 * np.exp(-t ** 2))))


def collapse_threshold_authors(rho: float, m: int, knots: int = 17, t_max: float = 3.0) -> float:
    """``lam*_a = A' / (A' + 2m S0 - N_rho)``, ``A' = (1 - rho) / 2``: below it the collapsed encoder has
    a smaller objective than every ``h = Qz`` in the authors' units (SIGReg of both views concatenated,
    alignment ``E||h(z') - h(z)||^2 / (4n)``; ``m`` samples per view, ``rho`` the pair correlation).
    Independent of the dimension n."""
    rho = check_rho(rho)
    m = check_int(m, "m", 1)
    a = (1.0 - rho) / 2.0
    b = 2 * m * collapse_value(knots, t_max) - pair_null_mean(rho, knots, t_max)
    if b <= 0:
        raise ValueError(f"m = {m} is too small: 2m S0 <= N_rho, so collapse beats h = Qz for every lam")
    return a / (a + b)


def conversion_factors(rho: float, knots: int = 17, t_max: float = 3.0) -> tuple[float, float]:
    """The two limits of ``c = T_cat / T`` (fact 5): ``N_rho / N0`` at the null and 2 far from it."""
    return pair_null_mean(rho, knots, t_max) / null_mean(knots, t_max), 2.0


def _check_lam(lam: float, name: str = "lam") -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)) or not 0.0 <= lam < 1.0:
        raise ValueError(f"{name} must be a number in [0, 1), got {lam!r}")
    return float(lam)


def _check_c(c: float) -> float:
    if isinstance(c, bool) or not isinstance(c, (int, float, np.floating)) or not (math.isfinite(c) and c > 0):
        raise ValueError(f"c must be a finite number > 0, got {c!r}")
    return float(c)


def lam_to_authors(lam: float, n: int, c: float) -> float:
    """Our lam -> the authors' lam weighing SIGReg against alignment alike: ``q_a = q / (4 n c)``,
    ``q = lam / (1 - lam)``, ``lam_a = q_a / (1 + q_a)`` (fact 5)."""
    lam, n, c = _check_lam(lam), check_int(n, "n", 1), _check_c(c)
    q = lam / (1.0 - lam) / (4.0 * n * c)
    return q / (1.0 + q)


def lam_from_authors(lam_a: float, n: int, c: float) -> float:
    """The inverse of :func:`lam_to_authors`: ``q = 4 n c q_a``."""
    lam_a, n, c = _check_lam(lam_a, "lam_a"), check_int(n, "n", 1), _check_c(c)
    q = lam_a / (1.0 - lam_a) * 4.0 * n * c
    return q / (1.0 + q)
