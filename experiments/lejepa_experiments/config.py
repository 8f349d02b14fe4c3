"""Experiment configs: defaults, loading (YAML or JSON), presets, overrides and validation.

A config is a nested dict with the sections of :data:`DEFAULTS`; a file gives any subset of it
(plus an optional ``presets`` mapping ``name -> partial config``, applied with ``--preset``).
Every key is validated: an unknown section or key, or a bad value, raises ``ValueError`` naming
the dotted key (``train.lr``, ``pair.kind``, ...). An empty config file is refused.

``train.checkpoint_every = K > 0`` writes a resume checkpoint every K steps (``lejepa train
--resume``, see :mod:`.commands`); 0 (the default) writes none. It does not change the numbers.

``train.restart = r`` (default 0) is the r-th independent restart of a run with the same seed: a new
encoder initialisation and new training batches, the same held-out evaluation set (the paper's best-of-K,
:func:`.engine.init_seed`; pick the best restart with :func:`.tables.best_of_k`).
"""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any, Callable

from ._checks import is_safe_name
from .data import LATENTS, MIXINGS, PAIRS
from .models import ACTIVATIONS, ENCODERS

LOSSES = ("sigreg", "vicreg", "whitening", "infonce")
CONVENTIONS = ("ours", "authors")
"""``loss.convention``: the units of ``loss.lam`` (``engine.objective``; ``docs/training.md``, "λ in the authors' units")."""

DEFAULTS: dict[str, Any] = {
    "name": "run",
    "latent": {"dim": 2, "dist": "gaussian", "alpha": 2.0},
    "pair": {"kind": "ou", "rho": 0.9},
    "mixing": {"kind": "spiral", "layers": 8, "seed": 0},
    "encoder": {"kind": "mlp", "width": 256, "depth": 4, "activation": "gelu"},
    "loss": {"kind": "sigreg", "convention": "ours", "lam": 0.05, "lam_end": None, "slices": 256, "knots": 17, "t_max": 3.0,
             "temperature": 1.0, "vicreg_sim": 25.0, "vicreg_var": 25.0, "vicreg_cov": 1.0},
    "train": {"steps": 20000, "batch": 256, "lr": 3e-3, "weight_decay": 0.01, "beta1": 0.9, "beta2": 0.999,
              "constant_frac": 0.5, "warmup_steps": 0, "min_lr_frac": 0.0, "grad_clip": 0.0,
              "log_every": 50, "checkpoint_every": 0, "restart": 0},
    "eval": {"size": 10000, "every": 1000, "seed_offset": 1_000_003},
    "runtime": {"device": "auto", "threads": 1, "progress": True, "deterministic": False},
}


def _int(minimum: int) -> Callable[[Any], int]:
    def f(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise TypeError(f"an integer >= {minimum}")
        return int(v)
    return f


def _float(lo: float = -math.inf, hi: float = math.inf, lo_open: bool = False, hi_open: bool = False
           ) -> Callable[[Any], float]:
    def f(v: Any) -> float:
        if isinstance(v, str):  # PyYAML reads 1e-3 (no dot) as a string
            try:
                v = float(v)
            except ValueError:
                raise TypeError("a finite number") from None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise TypeError("a finite number")
        x = float(v)
        if x < lo or x > hi or (lo_open and x == lo) or (hi_open and x == hi):
            lb, rb = ("(" if lo_open else "["), (")" if hi_open else "]")
            raise TypeError(f"a number in {lb}{lo}, {hi}{rb}")
        return x
    return f


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def f(v: Any) -> str:
        if not isinstance(v, str) or v not in choices:
            raise TypeError(f"one of {list(choices)}")
        return v
    return f


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError("true or false")
    return v


def _name(v: Any) -> str:
    if not is_safe_name(v):
        raise TypeError("a non-empty file-name-safe string")
    return v


def _device(v: Any) -> str:
    if not isinstance(v, str) or not (v in ("auto", "cpu", "cuda") or v.startswith("cuda:")):
        raise TypeError("'auto', 'cpu', 'cuda' or 'cuda:K'")
    return v


def _optional(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def g(v: Any) -> Any:
        return None if v is None else f(v)
    return g


SCHEMA: dict[str, Any] = {
    "name": _name,
    "latent": {"dim": _int(1), "dist": _choice(LATENTS), "alpha": _float(0.0, lo_open=True)},
    "pair": {"kind": _choice(PAIRS), "rho": _float(0.0, 1.0, True, True)},
    "mixing": {"kind": _choice(MIXINGS), "layers": _int(1), "seed": _int(0)},
    "encoder": {"kind": _choice(ENCODERS), "width": _int(1), "depth": _int(1),
                "activation": _choice(tuple(ACTIVATIONS))},
    "loss": {"kind": _choice(LOSSES), "convention": _choice(CONVENTIONS), "lam": _float(0.0, 1.0), "lam_end": _optional(_float(0.0, 1.0)), "slices": _int(1), "knots": _int(2),
             "t_max": _float(0.0, lo_open=True), "temperature": _float(0.0, lo_open=True),
             "vicreg_sim": _float(0.0), "vicreg_var": _float(0.0), "vicreg_cov": _float(0.0)},
    "train": {"steps": _int(1), "batch": _int(2), "lr": _float(0.0, lo_open=True), "weight_decay": _float(0.0),
              "beta1": _float(0.0, 1.0, hi_open=True), "beta2": _float(0.0, 1.0, hi_open=True),
              "constant_frac": _float(0.0, 1.0), "warmup_steps": _int(0), "min_lr_frac": _float(0.0, 1.0),
              "grad_clip": _float(0.0), "log_every": _int(1), "checkpoint_every": _int(0),
              "restart": _int(0)},
    "eval": {"size": _int(16), "every": _int(1), "seed_offset": _int(1)},
    "runtime": {"device": _device, "threads": _int(1), "progress": _bool, "deterministic": _bool},
}


def _merge(base: dict[str, Any], over: dict[str, Any], where: str = "") -> dict[str, Any]:
    """Recursive merge of ``over`` into a copy of ``base``; unknown keys raise (named)."""
    if not isinstance(over, dict):
        raise ValueError(f"config{(' section ' + where) if where else ''} must be a mapping, got {type(over).__name__}")
    out = copy.deepcopy(base)
    for k, v in over.items():
        key = f"{where}.{k}" if where else str(k)
        if k not in base:
            known = ", ".join(sorted(base))
            raise ValueError(f"unknown config key {key!r} (known{(' in ' + where) if where else ''}: {known})")
        if isinstance(base[k], dict):
            if not isinstance(v, dict):
                raise ValueError(f"config key {key!r} must be a mapping (a section), got {v!r}")
            out[k] = _merge(base[k], v, key)
        else:
            out[k] = v
    return out


def validate(cfg: dict[str, Any]) -> dict[str, Any]:
    """Check every key against :data:`SCHEMA` and the cross-key constraints; return ``cfg``."""
    def walk(c: dict[str, Any], schema: dict[str, Any], where: str) -> None:
        for k, v in c.items():
            key = f"{where}.{k}" if where else k
            if k not in schema:
                raise ValueError(f"unknown config key {key!r}")
            if isinstance(schema[k], dict):
                if not isinstance(v, dict):
                    raise ValueError(f"config key {key!r} must be a mapping (a section), got {v!r}")
                walk(v, schema[k], key)
            else:
                try:
                    c[k] = schema[k](v)
                except TypeError as exc:
                    raise ValueError(f"config key {key!r} must be {exc}, got {v!r}") from None
    walk(cfg, SCHEMA, "")
    dim, mix, enc = cfg["latent"]["dim"], cfg["mixing"]["kind"], cfg["encoder"]["kind"]
    if mix in ("spiral", "banana", "sinusoid") and dim != 2:
        raise ValueError(f"config key 'latent.dim' must be 2 for mixing.kind = {mix!r}, got {dim}")
    if mix == "coupling" and dim % 2:
        raise ValueError(f"config key 'latent.dim' must be even for mixing.kind = 'coupling', got {dim}")
    if enc == "matched" and mix != "coupling":
        raise ValueError(f"config key 'encoder.kind' = 'matched' needs mixing.kind = 'coupling', got {mix!r}")
    return cfg


def make_config(over: dict[str, Any] | None = None) -> dict[str, Any]:
    """Defaults merged with ``over`` (partial config), validated."""
    return validate(_merge(DEFAULTS, over or {}))


def _parse_text(text: str, path: str) -> Any:
    if path.endswith(".json"):
        return json.loads(text)
    import yaml

    return yaml.safe_load(text)


def load_config(path: str | os.PathLike[str], preset: str | None = None,
                overrides: list[str] | None = None) -> dict[str, Any]:
    """Load a YAML/JSON config file, apply preset ``preset`` (from the file's ``presets``) and
    ``overrides`` (strings ``section.key=value``, value parsed as YAML), validate and return it."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"config file {path!r} does not exist")
    with open(path, encoding="utf-8") as f:
        try:
            raw = _parse_text(f.read(), path)
        except Exception as exc:  # yaml/json parse error
            raise ValueError(f"config file {path!r} could not be parsed: {exc}") from None
    if raw is None or raw == {}:  # empty file, only comments, or `{}`: silently the full default run
        raise ValueError(f"config file {path!r} is empty; give at least one setting (the defaults alone "
                         "are a 20 000-step run)")
    if not isinstance(raw, dict):
        raise ValueError(f"config file {path!r} must hold a mapping, got {type(raw).__name__}")
    presets = raw.pop("presets", {}) or {}
    if not isinstance(presets, dict):
        raise ValueError("config key 'presets' must be a mapping of preset name -> partial config")
    cfg = _merge(DEFAULTS, raw)
    for pname, pval in presets.items():  # validate every preset's keys, used or not
        _merge(DEFAULTS, pval, f"presets.{pname}")
    if preset is not None:
        if preset not in presets:
            raise ValueError(f"preset {preset!r} not in the config's presets {sorted(presets)}")
        cfg = _merge(cfg, presets[preset])
    for item in overrides or []:
        cfg = _merge(cfg, parse_override(item))
    return validate(cfg)


def parse_override(item: str) -> dict[str, Any]:
    """``"train.lr=1e-3"`` -> ``{"train": {"lr": 0.001}}`` (value parsed as YAML)."""
    import yaml

    if "=" not in item:
        raise ValueError(f"override {item!r} must look like section.key=value")
    key, val = item.split("=", 1)
    parts = key.strip().split(".")
    if not all(parts):
        raise ValueError(f"override {item!r} has an empty key part")
    value: Any = yaml.safe_load(val)
    for p in reversed(parts):
        value = {p: value}
    return value
