"""Latent distributions, latent pairs and mixings (the synthetic world of the paper).

Latents (all coordinates iid, mean 0, variance 1):

* ``gaussian``: N(0, 1);
* ``laplace``: density ``exp(-|x|/b) / (2b)`` with ``b = 1/sqrt(2)``;
* ``gennorm``: generalized normal with shape ``alpha``, density proportional to ``exp(-|x/s|^alpha)``
  with ``s = sqrt(Gamma(1/alpha) / Gamma(3/alpha))`` (alpha = 1 is Laplace, alpha = 2 Gaussian);
  sampled as ``s * sign * G^(1/alpha)`` with ``G ~ Gamma(1/alpha, 1)``.

Pairs:

* ``ou`` (default, the paper's model): ``(z, z')`` with ``z' = rho z + sqrt(1 - rho^2) eta``,
  eta iid from the same family as z; pair correlation rho.
* ``two_view`` (the reference code's variant): ``(v1, v2)`` with ``v_i = rho z + sqrt(1 - rho^2) eta_i``;
  both views are noisy copies of z, their correlation is rho^2 (and for non-Gaussian z their law
  differs from that of z).

Mixings ``g: R^N -> R^N``:

* ``spiral`` (N = 2): ``g(z) = R(pi ||z||) z`` with R(a) the rotation by angle a (preserves N(0, I));
* ``banana`` (N = 2): ``(z0, z1 + z0^2)``;
* ``sinusoid`` (N = 2): ``(z0 + sin(1.5 z1), z1)``;
* ``coupling`` (any even N): L additive coupling layers; layer l maps ``(a, b)`` (the two halves)
  to ``(b + tanh(a W_l), a)`` i.e. adds to the second half and swaps, ``W_l = 2 * orth(G_l)`` with
  G_l a seeded Gaussian matrix and orth its orthogonal QR factor (sign-fixed).
"""

from __future__ import annotations

import math

import torch

from ._checks import check_choice, check_int, check_rho

LATENTS = ("gaussian", "laplace", "gennorm")
PAIRS = ("ou", "two_view")
MIXINGS = ("spiral", "banana", "sinusoid", "coupling", "identity")


def sample_latent(dist: str, m: int, n: int, *, alpha: float = 2.0, device: torch.device | str = "cpu",
                  dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``(m, n)`` iid unit-variance samples of the latent family ``dist`` (global torch RNG)."""
    check_choice(dist, LATENTS, "latent.dist")
    if dist == "gaussian":
        return torch.randn(m, n, device=device, dtype=dtype)
    if dist == "laplace":
        e = torch.empty(m, n, device=device, dtype=dtype).exponential_()
        sign = torch.randint(0, 2, (m, n), device=device).to(dtype) * 2 - 1
        return sign * e / math.sqrt(2.0)
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"latent.alpha must be a finite number > 0, got {alpha!r}")
    scale = math.sqrt(math.exp(math.lgamma(1.0 / alpha) - math.lgamma(3.0 / alpha)))
    conc = torch.full((m, n), 1.0 / alpha, device=device, dtype=torch.float64)
    g = torch.distributions.Gamma(conc, torch.ones_like(conc)).sample().to(dtype)
    sign = torch.randint(0, 2, (m, n), device=device).to(dtype) * 2 - 1
    return scale * sign * g.pow(1.0 / alpha)


def sample_pair(dist: str, pair: str, rho: float, m: int, n: int, *, alpha: float = 2.0,
                device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch of m latent pairs ``(z1, z2)`` of the structure ``pair`` (see module docstring)."""
    check_choice(pair, PAIRS, "pair.kind")
    rho = check_rho(rho, "pair.rho")
    s = math.sqrt(1.0 - rho * rho)
    z = sample_latent(dist, m, n, alpha=alpha, device=device, dtype=dtype)
    eta = sample_latent(dist, m, n, alpha=alpha, device=device, dtype=dtype)
    if pair == "ou":
        return z, rho * z + s * eta
    eta2 = sample_latent(dist, m, n, alpha=alpha, device=device, dtype=dtype)
    return rho * z + s * eta, rho * z + s * eta2


def pair_correlation(pair: str, rho: float) -> float:
    """Correlation of the aligned pair: rho for ``ou``, rho^2 for ``two_view``."""
    check_choice(pair, PAIRS, "pair.kind")
    return rho if pair == "ou" else rho * rho


def haar_orthogonal(k: int, generator: torch.Generator | None = None,
                    dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A uniformly (Haar) distributed ``k x k`` orthogonal matrix: the Q factor of a Gaussian matrix
    with the signs of R's diagonal moved into Q. Without that correction Q is not Haar; for k = 1 it
    is always ``[[1]]`` (LAPACK's Householder QR leaves a 1 x 1 matrix alone)."""
    q, r = torch.linalg.qr(torch.randn(k, k, generator=generator, dtype=dtype))
    return q * torch.sign(torch.diagonal(r))


class Mixing(torch.nn.Module):
    """A fixed (non-trainable) mixing g; its coupling weights are buffers, so they are saved with it."""

    weights: torch.Tensor      # (layers, dim/2, dim/2), registered as a buffer for kind 'coupling'

    def __init__(self, kind: str, dim: int, *, layers: int = 8, seed: int = 0):
        super().__init__()
        check_choice(kind, MIXINGS, "mixing.kind")
        dim = check_int(dim, "latent.dim", 1)
        if kind in ("spiral", "banana", "sinusoid") and dim != 2:
            raise ValueError(f"mixing.kind = {kind!r} needs latent.dim = 2, got {dim}")
        if kind == "coupling":
            if dim % 2:
                raise ValueError(f"mixing.kind = 'coupling' needs an even latent.dim, got {dim}")
            layers = check_int(layers, "mixing.layers", 1)
            gen = torch.Generator().manual_seed(check_int(seed, "mixing.seed", 0))
            ws = []
            for _ in range(layers):
                ws.append(2.0 * haar_orthogonal(dim // 2, gen, dtype=torch.float64))
            self.register_buffer("weights", torch.stack(ws).float())
        self.kind = kind
        self.dim = dim

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        if self.kind == "identity":
            return z
        if self.kind == "spiral":
            ang = math.pi * z.norm(dim=-1, keepdim=True)
            c, s = torch.cos(ang), torch.sin(ang)
            return torch.cat((c * z[..., :1] - s * z[..., 1:], s * z[..., :1] + c * z[..., 1:]), dim=-1)
        if self.kind == "banana":
            return torch.stack((z[..., 0], z[..., 1] + z[..., 0].square()), dim=-1)
        if self.kind == "sinusoid":
            return torch.stack((z[..., 0] + torch.sin(1.5 * z[..., 1]), z[..., 1]), dim=-1)
        half = self.dim // 2
        x = z
        for w in self.weights:
            a, b = x[..., :half], x[..., half:]
            x = torch.cat((b + torch.tanh(a @ w), a), dim=-1)
        return x

    def inverse(self, x: torch.Tensor) -> torch.Tensor:
        """Exact inverse (used by tests and the matched encoder's initial check)."""
        if self.kind == "identity":
            return x
        if self.kind == "spiral":
            ang = -math.pi * x.norm(dim=-1, keepdim=True)
            c, s = torch.cos(ang), torch.sin(ang)
            return torch.cat((c * x[..., :1] - s * x[..., 1:], s * x[..., :1] + c * x[..., 1:]), dim=-1)
        if self.kind == "banana":
            return torch.stack((x[..., 0], x[..., 1] - x[..., 0].square()), dim=-1)
        if self.kind == "sinusoid":
            return torch.stack((x[..., 0] - torch.sin(1.5 * x[..., 1]), x[..., 1]), dim=-1)
        half = self.dim // 2
        y = x
        for w in reversed(self.weights):
            nb, a = y[..., :half], y[..., half:]
            y = torch.cat((a, nb - torch.tanh(a @ w)), dim=-1)
        return y
