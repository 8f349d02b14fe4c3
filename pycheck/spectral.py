"""Hermite coefficients, spectral weights and OU correlations of functions of z ~ N(0, I_n).

For f in L2(N(0, I_n)) write ``f = sum_alpha b_alpha h_alpha`` with the orthonormal
``h_alpha = He_alpha / sqrt(alpha!)`` and ``b_alpha = E[f(z) h_alpha(z)]`` (so the paper's
coefficient is ``c_alpha = b_alpha / sqrt(alpha!)`` and ``c_alpha^2 alpha! = b_alpha^2``). Then

* ``E f = b_0``, ``Var f = sum_{alpha != 0} b_alpha^2`` (Parseval);
* spectral weights ``w_d = sum_{|alpha| = d} b_alpha^2 / Var f`` for d >= 1, ``w_0 = 0``,
  ``sum_d w_d = 1``;
* Mehler: for an OU pair ``z' = rho z + sqrt(1 - rho^2) eta`` (coordinatewise, eta independent),
  ``E[h_alpha(z) h_beta(z')] = delta_{alpha beta} rho^{|alpha|}``, hence
  ``corr(f(z), f(z')) = sum_{d >= 1} w_d rho^d``.

Truncating at ``max_degree = D`` leaves the residual ``r = 1 - sum_{d <= D} w_d >= 0``; its share of
the correlation lies in ``[0, rho^(D+1) r]`` (all weights are >= 0 and rho^d <= rho^(D+1) for
d > D). Nothing above D is dropped silently: :attr:`SpectralWeights.residual` reports r and
:meth:`SpectralWeights.correlation_bounds` carries it into the correlation.

Methods (``method=``):

* ``"adaptive"`` (default in 1-D): :func:`pycheck.quadrature.adaptive_expectation` on [-L, L]; steps and
  kinks anywhere are resolved by bisection to ``rtol`` (default 1e-12 of E|f h_n|); known
  break points can be passed as ``breakpoints``. Stated accuracy: the returned error estimate.
* ``"gauss-hermite"`` (default for dim 2 and 3): tensor Gauss-Hermite with ``n_nodes`` per
  coordinate; exact (up to rounding) when f is a polynomial of degree p in each coordinate and
  ``2 n_nodes - 1 >= p + D``. The error is estimated by repeating on a coarser grid.
* ``"composite"``: tensor composite Gauss-Legendre on [-L, L]^dim, panels split at
  ``breakpoints`` (for functions with jumps along coordinate hyperplanes); error estimated from a
  grid with half the panels.
* ``"monte-carlo"`` (default for dim >= 4): ``n_samples`` draws in ``n_batches`` batches; the squared
  coefficients use the unbiased cross-batch estimator ``mean_{b != b'} bhat_b bhat_b'`` (the naive
  square of a Monte Carlo mean is biased upwards by its variance); errors are standard errors.

``f`` is called on an array of points of shape ``(N, dim)`` and must return shape ``(N,)`` (or
``(N, 1)``); vector-valued functions (for encoders) return ``(N, k)`` and go through
:func:`hermite_coefficients`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pycheck._validate import check_finite_array, check_int, check_nonneg, check_rho
from pycheck.hermite import hermite_e_normalized_all, multi_factorial, multi_indices_upto
from pycheck.quadrature import (MAX_GH_NODES, adaptive_expectation, composite_legendre,
                                gauss_hermite, tensor_grid)

Function = Callable[[np.ndarray], Any]

MAX_DEGREE = 400
"""Largest ``max_degree``: above it the normalised Hermite polynomials overflow float64 at the edge of
the default domain (``h_500`` at ``|z| = sqrt(4 * 500 + 2) + 8`` is inf)."""
MAX_COEFFICIENTS = 200_000
"""Largest number of multi-indices ``C(dim + max_degree, dim)`` (each is a column of every table)."""
TAIL_RTOL = 1e-8
"""Largest accepted share of ``E f^2`` estimated beyond the integration domain (see :func:`tail_mass`)."""

METHODS = ("adaptive", "gauss-hermite", "composite", "monte-carlo")
_OPTIONS = {"method", "n_nodes", "half_width", "n_panels", "order", "breakpoints", "rtol", "atol",
            "n_init", "n_samples", "n_batches", "seed", "chunk"}
_PER_METHOD = {
    "adaptive": {"half_width", "order", "breakpoints", "rtol", "atol", "n_init"},
    "gauss-hermite": {"n_nodes"},
    "composite": {"half_width", "n_panels", "order", "breakpoints"},
    "monte-carlo": {"n_samples", "n_batches", "seed", "chunk"},
}


# --------------------------------------------------------------------------------------------
# evaluation of f with validation
# --------------------------------------------------------------------------------------------

def evaluate(f: Function, points: np.ndarray, out_dim: int | None = None,
             name: str = "f") -> np.ndarray:
    """Call ``f(points)`` (points of shape ``(N, dim)``) and return its values as ``(N, k)``.

    Raises ValueError if f returns a wrong shape (anything but ``(N,)`` or ``(N, k)``, or a k other
    than ``out_dim`` when given), any non-finite value, or a complex value with a non-zero
    imaginary part (never truncated to its real part).
    """
    n = points.shape[0]
    try:
        raw = f(points)
    except (ValueError, TypeError, IndexError) as exc:
        raise ValueError(f"{name} failed on points of shape {points.shape}: {exc}") from exc
    arr = np.asarray(raw)
    if np.iscomplexobj(arr) and np.any(np.imag(arr) != 0):
        raise ValueError(f"{name} must be real-valued, got complex values (e.g. {complex(arr.flat[np.argmax(np.imag(arr).ravel() != 0)])}); "
                         "pass the real and imaginary parts as separate functions")
    vals = np.asarray(np.real(arr) if np.iscomplexobj(arr) else arr, dtype=float)
    if vals.ndim == 1 and vals.shape[0] == n:
        vals = vals[:, None]
    elif not (vals.ndim == 2 and vals.shape[0] == n):
        raise ValueError(f"{name} must return shape ({n},) or ({n}, k) for points of shape "
                         f"{points.shape}, got shape {vals.shape}")
    if out_dim is not None and vals.shape[1] != out_dim:
        raise ValueError(f"{name} must return {out_dim} output(s) per point, got shape {vals.shape}")
    return check_finite_array(vals, f"{name}(z)")


# --------------------------------------------------------------------------------------------
# Hermite coefficients
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HermiteCoefficients:
    """Coefficients ``b[i, a] = E[f_i(z) h_{alpha_a}(z)]`` of a map f: R^dim -> R^k, |alpha| <= D.

    ``second_moment[i, j] = E[f_i f_j]`` (needed for the residual above D); ``coeff_sq[i, a]`` is an
    estimate of ``b[i, a]^2`` (unbiased for Monte Carlo, ``b^2`` otherwise); errors are estimated
    absolute errors (quadrature) or standard errors (Monte Carlo).
    """

    dim: int
    max_degree: int
    indices: list[tuple[int, ...]]
    degrees: np.ndarray
    coeffs: np.ndarray
    coeff_sq: np.ndarray
    coeff_error: np.ndarray
    second_moment: np.ndarray
    second_moment_error: np.ndarray
    method: str
    n_evals: int
    converged: bool = True
    note: str = ""

    @property
    def mean(self) -> np.ndarray:
        """E f_i = b_{i, 0}."""
        return self.coeffs[:, 0]

    def paper_coefficients(self) -> np.ndarray:
        """The paper's ``c_{i, alpha} = b_{i, alpha} / sqrt(alpha!)`` (f = sum_alpha c_alpha He_alpha)."""
        fact = np.array([multi_factorial(al) for al in self.indices], float)
        return self.coeffs / np.sqrt(fact)


def check_max_degree(max_degree: Any, dim: int) -> int:
    """``max_degree`` as an int in ``[0, MAX_DEGREE]`` with at most ``MAX_COEFFICIENTS``
    multi-indices in ``dim`` dimensions; else ValueError naming the limit."""
    D = check_int(max_degree, "max_degree", 0)
    if D > MAX_DEGREE:
        raise ValueError(f"max_degree must be <= {MAX_DEGREE} (MAX_DEGREE: higher normalised Hermite "
                         f"polynomials overflow float64 on the integration domain), got {D}")
    n = math.comb(dim + D, dim)
    if n > MAX_COEFFICIENTS:
        raise ValueError(f"max_degree {D} in dim {dim} gives {n} Hermite coefficients, more than "
                         f"MAX_COEFFICIENTS = {MAX_COEFFICIENTS}; lower max_degree")
    return D


def tail_mass(f: Function, dim: int, radius: float, out_dim: int | None = None,
              n_nodes: int = 64) -> np.ndarray:
    """Estimate of ``E[f_i(z)^2 1{radius < |z| < 1.5 radius}]`` for each output i (inf if f is
    non-finite there): the mass of ``f^2`` just outside a domain of radius ``radius``.

    1-D: Gauss-Legendre (``n_nodes`` points) on ``[radius, 1.5 radius]`` and its mirror image,
    summed: an accurate value. ``dim >= 2``: along each of the ``2 dim`` axis directions and (up
    to dim 3) the ``2^dim`` diagonals u, the radial integral ``int f(r u)^2 chi_dim(r) dr`` over the
    same interval (chi_dim the density of ``|z|``), maximised over u: a probe (exact for radial f),
    not a bound. A square-integrable f whose tails the domain resolves gives a negligible share of
    ``E f^2``; f = exp(z^2/4) (``f^2 phi`` constant) gives a share of about 1/2 in 1-D (``f^2 phi`` constant: the mass on
    ``[R, 1.5 R]`` is half of that on ``[-R, R]``).
    """
    from numpy.polynomial.legendre import leggauss

    t, u = leggauss(n_nodes)
    a, b = radius, 1.5 * radius
    r = 0.5 * (a + b) + 0.5 * (b - a) * t
    w = 0.5 * (b - a) * u
    if dim == 1:
        dirs = np.array([[1.0], [-1.0]])
    else:
        dirs = np.concatenate([np.eye(dim), -np.eye(dim)])
        if dim <= 3:
            import itertools

            diag = np.array(list(itertools.product((-1.0, 1.0), repeat=dim))) / math.sqrt(dim)
            dirs = np.concatenate([dirs, diag])
    # chi_dim density of |z| at r, with f^2 split as (f e^{-r^2/4})^2 so that neither factor overflows
    log_c = (1 - dim / 2) * math.log(2) - math.lgamma(dim / 2) if dim > 1 else math.log(2) - 0.5 * math.log(2 * math.pi)
    dens_wo_gauss = np.exp(log_c + (dim - 1) * np.log(r)) if dim > 1 else np.full_like(r, math.exp(log_c))
    pts = (dirs[:, None, :] * r[None, :, None]).reshape(-1, dim)          # every direction, one call
    try:
        vals = evaluate(f, pts, out_dim).reshape(len(dirs), r.size, -1)     # (n_dirs, N, k)
    except ValueError:                                                     # non-finite f out there
        return np.full(out_dim or 1, math.inf)
    with np.errstate(over="ignore"):
        g = (vals * np.exp(-r * r / 4)[None, :, None]) ** 2 * dens_wo_gauss[None, :, None]
    per = np.einsum("n,dnk->dk", w, g)                                     # (n_dirs, k)
    if dim == 1:
        return 0.5 * per.sum(axis=0)        # each side carries half of the two-sided density 2 phi
    return per.max(axis=0)


def _overflow_error() -> ValueError:
    return ValueError("E[f(z)^2] or a Hermite coefficient is not finite on the integration domain "
                      "(f(z)^2 or f(z) h_alpha(z) overflows float64): f is not square-integrable under "
                      "N(0, I), or grows too fast for this method")


def _domain_radius(method: str, o: dict[str, Any], dim: int) -> float:
    """Radius of the region the method integrates over (beyond it f is not evaluated)."""
    if method in ("adaptive", "composite"):
        return float(o["half_width"])
    if method == "gauss-hermite":
        return float(gauss_hermite(o["n_nodes"])[0].max())
    return math.sqrt(dim) + 6.0           # Monte Carlo: |z| beyond this has probability < 1e-8


def _resolve(dim: int, max_degree: int, options: dict[str, Any]) -> dict[str, Any]:
    unknown = set(options) - _OPTIONS
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; known: {sorted(_OPTIONS)}")
    o = dict(options)
    method = o.get("method") or ("adaptive" if dim == 1 else "gauss-hermite" if dim <= 3
                                 else "monte-carlo")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "adaptive" and dim != 1:
        raise ValueError(f"method 'adaptive' is 1-D only, got dim={dim}")
    if method in ("gauss-hermite", "composite") and dim > 3:
        raise ValueError(f"method {method!r} (a tensor grid) is offered for dim <= 3, got dim={dim};"
                         " use method='monte-carlo'")
    o["method"] = method
    stray = set(options) - _PER_METHOD[method] - {"method"}
    if stray:
        raise ValueError(f"option(s) {sorted(stray)} do not apply to method {method!r}; it takes "
                         f"{sorted(_PER_METHOD[method])}")
    L = o.get("half_width")
    o["half_width"] = (max(10.0, math.sqrt(4 * max_degree + 2) + 8.0) if L is None
                       else check_nonneg(L, "half_width"))
    if o["half_width"] <= 0:
        raise ValueError("half_width must be > 0")
    if method == "gauss-hermite":
        default = {1: max(2 * max_degree + 40, 100), 2: max(max_degree + 40, 80),
                   3: max(max_degree + 30, 48)}[dim]
        o["n_nodes"] = check_int(o.get("n_nodes", min(default, MAX_GH_NODES)), "n_nodes", 2)
    if method == "composite":
        o["n_panels"] = check_int(o.get("n_panels", {1: 400, 2: 80, 3: 12}[dim]), "n_panels", 2)
        o["order"] = check_int(o.get("order", 10), "order", 1)
    if method == "adaptive":
        o["order"] = check_int(o.get("order", 20), "order", 1)
        o["n_init"] = check_int(o.get("n_init", int(math.ceil(4 * o["half_width"]))), "n_init", 1)
    o["rtol"] = check_nonneg(o.get("rtol", 1e-12), "rtol")
    o["atol"] = check_nonneg(o.get("atol", 1e-15), "atol")
    o["breakpoints"] = tuple(float(b) for b in o.get("breakpoints", ()))
    if method == "monte-carlo":
        o["n_samples"] = check_int(o.get("n_samples", 200_000), "n_samples", 4)
        o["n_batches"] = check_int(o.get("n_batches", 20), "n_batches", 2)
        o["seed"] = check_int(o.get("seed", 0), "seed", 0)
        o["chunk"] = check_int(o.get("chunk", 8192), "chunk", 1)
    return o


def _tensor_coeffs(vals: np.ndarray, nodes: np.ndarray, weights: np.ndarray, wflat: np.ndarray,
                   dim: int, max_degree: int,
                   indices: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Contract values on a tensor grid with ``w_j h_n(x_j)`` axis by axis; return (b, E[f f^T]).

    ``nodes``/``weights`` are the 1-D rule, ``wflat`` the product weights of the tensor grid
    (:func:`pycheck.quadrature.tensor_grid`).
    """
    n = nodes.size
    k = vals.shape[1]
    hw = hermite_e_normalized_all(max_degree, nodes) * weights          # (D+1, N)
    t = vals.reshape(*([n] * dim), k)
    for _ in range(dim):
        # contract the leading grid axis; the new Hermite axis goes to the back (before k's turn)
        t = np.tensordot(hw, t, axes=([1], [0]))                      # (D+1, rest..., k)
        t = np.moveaxis(t, 0, -2)                                     # (rest..., D+1, k)
    # now axes are (D+1,)*dim in coordinate order, then k
    b = np.stack([t[al] for al in indices], axis=-1)                   # (k, n_alpha)
    m2 = np.einsum("n,ni,nj->ij", wflat, vals, vals)
    return b, m2


def _grid_rule(method: str, o: dict[str, Any], coarse: bool) -> tuple[np.ndarray, np.ndarray]:
    if method == "gauss-hermite":
        n = o["n_nodes"]
        if coarse:
            n = max(2, n - max(4, n // 4))
        return gauss_hermite(n)
    n_panels = o["n_panels"] if not coarse else max(1, o["n_panels"] // 2)
    return composite_legendre(o["half_width"], n_panels, o["order"], o["breakpoints"])


def hermite_coefficients(f: Function, dim: int, max_degree: int, out_dim: int | None = None,
                         **options: Any) -> HermiteCoefficients:
    """Hermite coefficients ``b_alpha = E[f(z) h_alpha(z)]`` for all |alpha| <= max_degree.

    See the module docstring for ``method`` and its options. Raises ValueError on bad dim,
    max_degree (above :data:`MAX_DEGREE` or :data:`MAX_COEFFICIENTS`), unknown options, an f
    returning non-finite, complex values or a wrong shape, or a non-finite ``E f^2`` or coefficient
    on the domain (f^2 phi overflows: f is not square-integrable or grows too fast to resolve).

    Tails: every method sees f only on a bounded region (radius R: the adaptive/composite
    half-width, the largest Gauss-Hermite node, or sqrt(dim) + 6 for Monte Carlo). The share of
    ``E f_i^2`` in ``R < |z| < 1.5 R`` (:func:`tail_mass`) above :data:`TAIL_RTOL` means the
    region misses part of f (a heavy or non-square-integrable tail such as exp(z^2/4)): the result
    then has ``converged=False`` and says so in ``note``.
    """
    dim = check_int(dim, "dim", 1)
    max_degree = check_max_degree(max_degree, dim)
    o = _resolve(dim, max_degree, options)
    hc = _coefficients(f, dim, max_degree, out_dim, o)
    diag = np.diag(hc.second_moment)
    if not (np.all(np.isfinite(hc.second_moment)) and np.all(np.isfinite(hc.coeffs))):
        raise _overflow_error()
    radius = _domain_radius(o["method"], o, dim)
    share = tail_mass(f, dim, radius, hc.coeffs.shape[0]) / np.maximum(diag, 1e-300)
    worst = float(np.max(share))
    if not worst <= TAIL_RTOL:
        note = (hc.note + f"; NOT CONVERGED: an estimated share {worst:.3g} of E f^2 lies in "
                f"{radius:.3g} < |z| < {1.5 * radius:.3g}, outside the region integrated (TAIL_RTOL = "
                f"{TAIL_RTOL:g}): f's tail is unresolved (f may not be square-integrable)")
        hc = dataclasses.replace(hc, converged=False, note=note)
    return hc


def _coefficients(f: Function, dim: int, max_degree: int, out_dim: int | None,
                  o: dict[str, Any]) -> HermiteCoefficients:
    method = o["method"]
    indices = multi_indices_upto(dim, max_degree)
    degrees = np.array([sum(a) for a in indices])

    if method == "adaptive":
        k_holder: dict[str, int] = {}

        def F(x: np.ndarray) -> np.ndarray:
            vals = evaluate(f, x[:, None], out_dim)                   # (N, k)
            k_holder["k"] = vals.shape[1]
            h = hermite_e_normalized_all(max_degree, x)                 # (D+1, N)
            iu = np.triu_indices(vals.shape[1])
            with np.errstate(over="ignore", invalid="ignore"):
                prod = (vals.T[:, None, :] * h[None, :, :]).reshape(-1, x.size)
                sq = vals.T[iu[0]] * vals.T[iu[1]]
            out = np.concatenate([prod, sq], axis=0)
            if not np.all(np.isfinite(out)):     # stop at once: bisection cannot fix an overflow
                raise _overflow_error()
            return out

        res = adaptive_expectation(F, o["half_width"], o["n_init"], o["order"], o["rtol"],
                                   o["atol"], o["breakpoints"])
        k = k_holder["k"]
        nb = k * (max_degree + 1)
        b = res.values[:nb].reshape(k, max_degree + 1)
        be = res.errors[:nb].reshape(k, max_degree + 1)
        iu = np.triu_indices(k)
        m2 = np.zeros((k, k))
        m2e = np.zeros((k, k))
        m2[iu] = res.values[nb:]
        m2e[iu] = res.errors[nb:]
        m2 = m2 + np.triu(m2, 1).T
        m2e = m2e + np.triu(m2e, 1).T
        note = (f"adaptive Gauss-Legendre ({o['order']}-point panels) on [-{o['half_width']:.3g}, "
                f"{o['half_width']:.3g}], rtol {o['rtol']:.1e}; tails beyond dropped")
        return HermiteCoefficients(dim, max_degree, indices, degrees, b, b ** 2, be, m2, m2e,
                                   method, res.n_evals, res.converged, note)

    if method in ("gauss-hermite", "composite"):
        out = []
        n_evals = 0
        for coarse in (False, True):
            nodes, weights = _grid_rule(method, o, coarse)
            pts, wflat = tensor_grid(nodes, weights, dim)
            vals = evaluate(f, pts, out_dim)
            n_evals += pts.shape[0]
            out.append(_tensor_coeffs(vals, nodes, weights, wflat, dim, max_degree, indices))
        (b, m2), (b2, m22) = out
        be = np.abs(b - b2)
        m2e = np.abs(m2 - m22)
        if method == "gauss-hermite":
            note = (f"tensor Gauss-Hermite, {o['n_nodes']} nodes per coordinate; error = difference "
                    "from a coarser grid")
        else:
            note = (f"tensor composite Gauss-Legendre, {o['n_panels']} panels x {o['order']} on "
                    f"[-{o['half_width']:.3g}, {o['half_width']:.3g}]; error = difference from half "
                    "the panels")
        return HermiteCoefficients(dim, max_degree, indices, degrees, b, b ** 2, be, m2, m2e,
                                   method, n_evals, True, note)

    return _mc_coefficients(f, dim, max_degree, out_dim, indices, degrees, o)


def _mc_coefficients(f: Function, dim: int, max_degree: int, out_dim: int | None,
                     indices: list[tuple[int, ...]], degrees: np.ndarray,
                     o: dict[str, Any]) -> HermiteCoefficients:
    rng = np.random.default_rng(o["seed"])
    nb = o["n_batches"]
    per = o["n_samples"] // nb
    A = np.array(indices)                                              # (n_alpha, dim)
    bsum: Any = None
    m2sum: Any = None
    for bi in range(nb):
        acc: Any = None
        m2acc: Any = None
        done = 0
        while done < per:
            m = min(o["chunk"], per - done)
            z = rng.standard_normal((m, dim))
            vals = evaluate(f, z, out_dim)                             # (m, k)
            h = hermite_e_normalized_all(max_degree, z)                 # (D+1, m, dim)
            ha = np.ones((len(indices), m))
            for j in range(dim):
                ha *= h[A[:, j], :, j]
            part = vals.T @ ha.T                                        # (k, n_alpha)
            acc = part if acc is None else acc + part
            pm2 = vals.T @ vals
            m2acc = pm2 if m2acc is None else m2acc + pm2
            done += m
        if bsum is None:
            bsum = np.zeros((nb, *acc.shape))
            m2sum = np.zeros((nb, *m2acc.shape))
        bsum[bi] = acc / per
        m2sum[bi] = m2acc / per
    b = bsum.mean(axis=0)
    be = bsum.std(axis=0, ddof=1) / math.sqrt(nb)
    tot = bsum.sum(axis=0)
    b_sq = (tot ** 2 - (bsum ** 2).sum(axis=0)) / (nb * (nb - 1))     # unbiased for b^2
    m2 = m2sum.mean(axis=0)
    m2e = m2sum.std(axis=0, ddof=1) / math.sqrt(nb)
    note = (f"Monte Carlo, {per * nb} samples in {nb} batches (seed {o['seed']}); errors are "
            "standard errors; squared coefficients by the unbiased cross-batch estimator")
    return HermiteCoefficients(dim, max_degree, indices, degrees, b, b_sq, be, m2, m2e,
                               "monte-carlo", per * nb, True, note)


# --------------------------------------------------------------------------------------------
# spectral weights
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpectralWeights:
    """Spectral weights of a scalar f: ``weights[d] = sum_{|alpha|=d} b_alpha^2 / Var f``.

    ``weights[0] = 0``; ``residual = 1 - sum(weights)`` is the fraction of Var f above
    ``max_degree`` (>= 0 up to the stated error; reported as computed, not clipped). ``errors[d]``
    and ``residual_error`` are estimated absolute errors (quadrature) or standard errors (Monte
    Carlo), see ``error_kind``.
    """

    weights: np.ndarray
    residual: float
    mean: float
    variance: float
    errors: np.ndarray
    residual_error: float
    dim: int
    max_degree: int
    method: str
    error_kind: str
    n_evals: int
    converged: bool
    note: str
    coefficients: HermiteCoefficients = field(repr=False)

    @property
    def error(self) -> float:
        """Largest estimated error over the weights and the residual."""
        return float(max(np.max(self.errors), self.residual_error))

    def correlation_bounds(self, rho: float) -> tuple[float, float]:
        """Interval for ``corr(f(z), f(z')) = sum_d w_d rho^d`` given the truncation at D.

        ``[S - e, S + e + rho^(D+1) max(r + e_r, 0)]`` with ``S = sum_{d<=D} w_d rho^d``,
        ``e = sum_d errors[d] rho^d`` and r the residual (error e_r); the tail term is in
        ``[0, rho^(D+1) r]`` because every weight is >= 0 and rho^d <= rho^(D+1) for d > D.
        For the quadrature methods e is an error estimate; for Monte Carlo it is one standard
        error, so the interval is then a 1-sigma band, not a bound.
        """
        rho = check_rho(rho)
        powers = rho ** np.arange(self.max_degree + 1)
        s = float(self.weights @ powers)
        e = float(self.errors @ powers)
        tail = rho ** (self.max_degree + 1) * max(self.residual + self.residual_error, 0.0)
        return s - e, s + e + tail


def spectral_weights(f: Function, dim: int, max_degree: int, **options: Any) -> SpectralWeights:
    """Spectral weights ``w_d = sum_{|alpha| = d} c_alpha^2 alpha! / Var f`` of a scalar f: R^dim -> R.

    Returns a :class:`SpectralWeights` with ``.weights`` (index 0..max_degree, w_0 = 0) and
    ``.residual`` (fraction of Var f above max_degree). Raises ValueError for dim < 1,
    max_degree < 0, an unknown option, an f returning non-finite values or a wrong shape, or a
    constant f (Var f = 0: the weights are undefined), or an f with non-finite ``E f^2`` on the
    domain. An unresolved tail (see :func:`hermite_coefficients`) gives ``converged=False``.
    """
    hc = hermite_coefficients(f, dim, max_degree, out_dim=1, **options)
    mc = hc.method == "monte-carlo"
    b = hc.coeffs[0]
    bsq = hc.coeff_sq[0]
    be = hc.coeff_error[0]
    m2 = float(hc.second_moment[0, 0])
    mean = float(b[0])
    var = m2 - float(bsq[0]) if mc else m2 - mean ** 2
    if not var > 1e-13 * max(m2, 1e-300):
        raise ValueError(f"f is constant (Var f = {var:.3g}): spectral weights are undefined")
    var_err = float(hc.second_moment_error[0, 0]) + 2 * abs(mean) * float(be[0]) + float(be[0]) ** 2
    D = max_degree
    num = np.bincount(hc.degrees, weights=bsq, minlength=D + 1)
    num[0] = 0.0
    num_err = np.bincount(hc.degrees, weights=2 * np.abs(b) * be + be ** 2, minlength=D + 1)
    num_err[0] = 0.0
    weights = num / var
    errors = num_err / var + weights * var_err / var
    residual = float(1.0 - weights.sum())
    res_err = float(errors.sum())
    kind = "standard error" if mc else "estimated absolute error"
    return SpectralWeights(weights, residual, mean, var, errors, res_err, dim, D, hc.method, kind,
                           hc.n_evals, hc.converged, hc.note, hc)


# --------------------------------------------------------------------------------------------
# OU correlation
# --------------------------------------------------------------------------------------------

def ou_pair(n_samples: int, dim: int, rho: float,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw (z, z') with z ~ N(0, I), ``z' = rho z + sqrt(1 - rho^2) eta``, eta ~ N(0, I) independent."""
    rho = check_rho(rho)
    n_samples = check_int(n_samples, "n_samples", 1)
    dim = check_int(dim, "dim", 1)
    z = rng.standard_normal((n_samples, dim))
    zp = rho * z + math.sqrt(1.0 - rho * rho) * rng.standard_normal((n_samples, dim))
    return z, zp


def _default_degree(dim: int) -> int:
    return {1: 60, 2: 30, 3: 10}.get(dim, 4)


@dataclass(frozen=True)
class OUCorrelation:
    """corr(f(z), f(z')) through the spectral weights (interval and midpoint) and by Monte Carlo."""

    value: float                 #: midpoint of [lower, upper]
    lower: float
    upper: float
    rho: float
    spectral: SpectralWeights = field(repr=False)
    mc_value: float = math.nan   #: direct Monte Carlo Pearson correlation (nan if not run)
    mc_stderr: float = math.nan  #: its jackknife standard error

    def mc_interval(self, z: float = 6.0) -> tuple[float, float]:
        """``mc_value +- z * mc_stderr`` (default 6 sigma)."""
        return self.mc_value - z * self.mc_stderr, self.mc_value + z * self.mc_stderr


def ou_correlation_report(f: Function, rho: float, dim: int = 1, max_degree: int | None = None,
                          mc_samples: int = 0, mc_seed: int = 0, **options: Any) -> OUCorrelation:
    """Spectral interval for corr(f(z), f(z')) (see :meth:`SpectralWeights.correlation_bounds`)
    and, if ``mc_samples > 0``, a direct Monte Carlo estimate with its standard error.

    Raises ValueError (with the reason) when the spectral weights did not converge, e.g. for an f
    whose tail the integration region does not resolve (f = exp(z^2/4), Var f = inf)."""
    rho = check_rho(rho)
    dim = check_int(dim, "dim", 1)
    D = _default_degree(dim) if max_degree is None else check_int(max_degree, "max_degree", 0)
    sw = spectral_weights(f, dim, D, **options)
    if not sw.converged:
        raise ValueError(f"the spectral weights of f did not converge, so no interval for "
                         f"corr(f(z), f(z')) can be given: {sw.note}")
    lo, hi = sw.correlation_bounds(rho)
    mv, ms = (math.nan, math.nan)
    if mc_samples:
        mv, ms = ou_correlation_mc(f, rho, dim, mc_samples, mc_seed)
    return OUCorrelation(0.5 * (lo + hi), lo, hi, rho, sw, mv, ms)


def ou_correlation(f: Function, rho: float, dim: int = 1, **options: Any) -> float:
    """corr(f(z), f(z')) for an OU pair with parameter rho, as ``sum_d w_d rho^d`` (Mehler).

    Returns the midpoint of the interval of :func:`ou_correlation_report`, whose half-width bounds
    the error from the truncation at ``max_degree`` (default 60 in 1-D, 30 in 2-D, 10 in 3-D, 4
    beyond) plus the quadrature error. Options as for :func:`spectral_weights`.
    """
    return ou_correlation_report(f, rho, dim, **options).value


def ou_correlation_mc(f: Function, rho: float, dim: int = 1, n_samples: int = 200_000,
                      seed: int = 0, n_blocks: int = 50) -> tuple[float, float]:
    """Direct Monte Carlo Pearson correlation of (f(z), f(z')) and its jackknife standard error.

    The sample is cut into ``n_blocks`` blocks; the leave-one-block-out correlations r_(b) give
    ``se^2 = (B - 1)/B sum_b (r_(b) - mean r_(.))^2``. Valid for any f with finite fourth moment
    (no normality assumption, unlike Fisher's z). Raises ValueError if ``n_samples < 2 n_blocks``
    or if f(z) or f(z') has zero sample variance (the correlation is undefined).
    """
    rho = check_rho(rho)
    dim = check_int(dim, "dim", 1)
    n_samples = check_int(n_samples, "n_samples", 2)
    n_blocks = check_int(n_blocks, "n_blocks", 2)
    if n_samples < 2 * n_blocks:
        raise ValueError(f"n_samples must be >= 2 * n_blocks (at least 2 samples per jackknife block), "
                         f"got n_samples={n_samples}, n_blocks={n_blocks}")
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    z, zp = ou_pair(n_samples, dim, rho, rng)
    x = evaluate(f, z, 1)[:, 0]
    y = evaluate(f, zp, 1)[:, 0]
    per = n_samples // n_blocks
    x, y = x[: per * n_blocks].reshape(n_blocks, per), y[: per * n_blocks].reshape(n_blocks, per)
    sums = np.stack([x.sum(1), y.sum(1), (x * x).sum(1), (y * y).sum(1), (x * y).sum(1)], axis=1)

    def corr(s: np.ndarray, n: int) -> np.ndarray:
        mx, my = s[..., 0] / n, s[..., 1] / n
        cxx, cyy, cxy = s[..., 2] / n - mx * mx, s[..., 3] / n - my * my, s[..., 4] / n - mx * my
        return cxy / np.sqrt(cxx * cyy)

    total = sums.sum(axis=0)
    if not (np.var(x) > 0 and np.var(y) > 0):
        raise ValueError("f(z) has zero sample variance: the correlation is undefined")
    r = float(corr(total, per * n_blocks))
    loo = corr(total[None, :] - sums, per * (n_blocks - 1))
    se = float(math.sqrt((n_blocks - 1) / n_blocks * np.sum((loo - loo.mean()) ** 2)))
    return r, se
