"""Encoders: an MLP and the matched inverse-coupling encoder. Device-agnostic ``torch.nn.Module``s."""

from __future__ import annotations

import torch

from ._checks import check_choice, check_int
from .data import haar_orthogonal

ENCODERS = ("mlp", "matched")
ACTIVATIONS = {"gelu": lambda: torch.nn.GELU(), "gelu_tanh": lambda: torch.nn.GELU(approximate="tanh"),
               "relu": lambda: torch.nn.ReLU(), "tanh": lambda: torch.nn.Tanh(),
               "silu": lambda: torch.nn.SiLU()}


class MLP(torch.nn.Module):
    """``N -> width -> ... -> width -> N``: ``depth`` hidden blocks ``Linear + activation``, then a
    linear read-out (``depth = 4``, ``width = 256``, GELU is the paper's encoder)."""

    def __init__(self, dim: int, width: int = 256, depth: int = 4, activation: str = "gelu"):
        super().__init__()
        dim = check_int(dim, "latent.dim", 1)
        width = check_int(width, "encoder.width", 1)
        depth = check_int(depth, "encoder.depth", 1)
        check_choice(activation, tuple(ACTIVATIONS), "encoder.activation")
        layers: list[torch.nn.Module] = []
        d_in = dim
        for _ in range(depth):
            layers += [torch.nn.Linear(d_in, width), ACTIVATIONS[activation]()]
            d_in = width
        layers.append(torch.nn.Linear(d_in, dim))
        self.net = torch.nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class MatchedCoupling(torch.nn.Module):
    """The exact inverse of :class:`lejepa_experiments.data.Mixing` ``coupling`` with learnable weights.

    Layer l (applied in reverse order) maps ``(y1, y2)`` to ``(y2, y1 - tanh(y2 V_l))``; with
    ``V_l = W_l`` the stack is ``g^{-1}``. The ``V_l`` start as Haar-random orthogonal matrices
    (:func:`haar_orthogonal`, global RNG).
    """

    def __init__(self, dim: int, layers: int = 8):
        super().__init__()
        dim = check_int(dim, "latent.dim", 2)
        if dim % 2:
            raise ValueError(f"encoder.kind = 'matched' needs an even latent.dim, got {dim}")
        layers = check_int(layers, "mixing.layers", 1)
        self.weights = torch.nn.Parameter(torch.stack([haar_orthogonal(dim // 2) for _ in range(layers)]))
        self.half_dim = dim // 2          # not ``half``: that is nn.Module.half()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x
        for l in range(self.weights.shape[0] - 1, -1, -1):
            nb, a = y[..., : self.half_dim], y[..., self.half_dim:]
            y = torch.cat((a, nb - torch.tanh(a @ self.weights[l])), dim=-1)
        return y


def build_encoder(kind: str, dim: int, *, width: int = 256, depth: int = 4, activation: str = "gelu",
                  mixing_kind: str = "spiral", mixing_layers: int = 8) -> torch.nn.Module:
    """Encoder named by ``kind``; ``matched`` requires the ``coupling`` mixing."""
    check_choice(kind, ENCODERS, "encoder.kind")
    if kind == "mlp":
        return MLP(dim, width, depth, activation)
    if mixing_kind != "coupling":
        raise ValueError(f"encoder.kind = 'matched' needs mixing.kind = 'coupling', got {mixing_kind!r}")
    return MatchedCoupling(dim, mixing_layers)


class ConvEncoder(torch.nn.Module):
    """CNN for ``(B, H, W, 3)`` uint8 frames (the paper's Reacher encoder with the default channels):
    ``len(channels)`` blocks ``Conv2d(kernel 4, stride 2, padding 1) + BatchNorm2d + GELU`` (each halves
    the side), pooling, then the head ``Linear(features, head) + GELU + Linear(head, out_dim)``.
    ``pool = "avg"``: global average pooling (``features = channels[-1]``; translation-invariant, so
    where in the frame a pattern sits is only seen through the padding); ``pool = "flatten"``: the
    final ``channels[-1] x s x s`` map flattened (``s = in_size / 2^len(channels)``; keeps position).
    Input pixels are scaled to [0, 1]; float input is taken as already scaled."""

    def __init__(self, out_dim: int = 2, channels: tuple[int, ...] | list[int] = (32, 64, 128, 256),
                 head: int = 256, in_channels: int = 3, pool: str = "avg", in_size: int = 64):
        super().__init__()
        out_dim = check_int(out_dim, "encoder.out_dim", 1)
        head = check_int(head, "encoder.head", 1)
        if not isinstance(channels, (list, tuple)) or not channels:
            raise ValueError(f"encoder.channels must be a non-empty list of integers, got {channels!r}")
        blocks: list[torch.nn.Module] = []
        c_in = check_int(in_channels, "encoder.in_channels", 1)
        for c in channels:
            c = check_int(c, "encoder.channels[i]", 1)
            blocks += [torch.nn.Conv2d(c_in, c, 4, stride=2, padding=1), torch.nn.BatchNorm2d(c), torch.nn.GELU()]
            c_in = c
        check_choice(pool, ("avg", "flatten"), "encoder.pool")
        side = check_int(in_size, "encoder.in_size", 1)
        for _ in channels:
            side = (side + 2 - 4) // 2 + 1
        if side < 1:
            raise ValueError(f"encoder.in_size = {in_size} is too small for {len(channels)} stride-2 convolutions")
        pooling = [torch.nn.AdaptiveAvgPool2d(1)] if pool == "avg" else []
        n_feat = c_in if pool == "avg" else c_in * side * side
        self.in_size = int(in_size)
        self.features = torch.nn.Sequential(*blocks, *pooling, torch.nn.Flatten())
        self.head = torch.nn.Sequential(torch.nn.Linear(n_feat, head), torch.nn.GELU(), torch.nn.Linear(head, out_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 4 or x.shape[-1] != self.features[0].in_channels:
            raise ValueError(f"frames must have shape (B, H, W, {self.features[0].in_channels}), got {tuple(x.shape)}")
        if x.shape[1] != self.in_size or x.shape[2] != self.in_size:
            raise ValueError(f"frames must be {self.in_size} x {self.in_size} (encoder.in_size), got {tuple(x.shape[1:3])}")
        x = x.permute(0, 3, 1, 2)
        x = x.float() / 255.0 if x.dtype == torch.uint8 else x.float()
        return self.head(self.features(x))
