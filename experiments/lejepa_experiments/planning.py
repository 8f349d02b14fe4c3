"""Planning in latent space: a small synthetic analogue of the paper's Reacher experiment.

Corollary 4.5 of the paper: if the encoder is ``h(g(z)) = Qz`` with Q orthogonal and the planning cost
depends on states only through an O(n)-invariant function (here the distance to the goal), then
planning on encoded observations uses the true costs and finds the true optimal plans
(``Lejepa/Planning.lean`` proves the deterministic statement). This module measures how close a
*trained* encoder comes to that.

World: state ``z`` in R^n, observation ``x = g(z)`` (the config's mixing), action ``u`` in R^n with
dynamics ``z <- z + u``; start and goal are drawn from N(0, I). Planner (random-shooting model
predictive control, the same for every representation): at each of ``horizon`` steps it draws
``candidates`` actions ``u_k ~ N(0, step^2 I)`` and applies the one whose next state is closest to
the goal *in the representation*, ``argmin_k ||r(z + u_k) - r(z*)||``, for

* ``oracle``: ``r(z) = z`` (the true cost);
* ``encoder``: ``r(z) = h(g(z))`` (the trained encoder on the observation);
* ``observation``: ``r(z) = g(z)`` (planning on raw observations).

All representations see the same candidate actions (common random numbers), so differences come
from the representation alone. Reported per representation: the mean true final distance
``||z_T - z*||`` and its ratio to the oracle's (the paper's "normalised cost"; 1 = oracle), the
fraction of episodes whose first action equals the oracle's, and the mean absolute error of the
predicted cost ``| ||r(z) - r(z*)||^2 - ||z - z*||^2 |`` on start/goal pairs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # torch is imported inside the functions, so ``lejepa plan --help`` needs no torch
    import torch

Rep = Callable[["torch.Tensor"], "torch.Tensor"]


def _check(episodes: int, horizon: int, candidates: int, step: float, seed: int) -> None:
    for name, v, lo in (("episodes", episodes, 2), ("horizon", horizon, 1), ("candidates", candidates, 2),
                        ("seed", seed, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step) or step <= 0:
        raise ValueError(f"step must be a finite number > 0, got {step!r}")


def plan(reps: dict[str, Rep], dim: int, *, episodes: int = 500, horizon: int = 10, candidates: int = 64,
         step: float = 0.3, seed: int = 0, device: torch.device | str = "cpu",
         per_episode: bool = False) -> dict[str, dict[str, Any]]:
    """Run the planner of the module docstring for every representation in ``reps`` (each maps a
    float64 ``(B, dim)`` batch of states to ``(B, d)`` representations; one must be ``"oracle"``).
    Returns, per representation: ``final_distance`` (mean), ``final_distance_se``, ``ratio_to_oracle``,
    ``first_action_agreement``, ``cost_error`` (mean absolute error of the predicted squared distance);
    with ``per_episode=True`` also ``final_distances``, the list of per-episode true final distances
    (episode i has the same start, goal and candidates for every representation: paired data)."""
    import torch

    with torch.no_grad():
        return _plan(reps, dim, episodes=episodes, horizon=horizon, candidates=candidates, step=step,
                     seed=seed, device=device, per_episode=per_episode)


def _plan(reps: dict[str, Rep], dim: int, *, episodes: int, horizon: int, candidates: int, step: float,
          seed: int, device: torch.device | str, per_episode: bool) -> dict[str, dict[str, Any]]:
    import torch

    _check(episodes, horizon, candidates, step, seed)
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be an integer >= 1, got {dim!r}")
    if "oracle" not in reps:
        raise ValueError("reps must include 'oracle' (r(z) = z), the reference for the ratios")
    gen = torch.Generator(device="cpu").manual_seed(seed)
    z0 = torch.randn(episodes, dim, generator=gen, dtype=torch.float64).to(device)
    goal = torch.randn(episodes, dim, generator=gen, dtype=torch.float64).to(device)
    noise = (step * torch.randn(horizon, episodes, candidates, dim, generator=gen, dtype=torch.float64)).to(device)

    def enc(r: Rep, z: torch.Tensor) -> torch.Tensor:
        out = r(z).to(torch.float64)
        if out.ndim != 2 or out.shape[0] != z.shape[0] or not torch.isfinite(out).all():
            raise ValueError("a representation must map (B, dim) states to a finite (B, d) tensor")
        return out

    results: dict[str, dict[str, Any]] = {}
    for name, r in reps.items():
        rg = enc(r, goal)                                               # (E, d)
        z = z0.clone()
        first = None
        for t in range(horizon):
            cand = z[:, None, :] + noise[t]                             # (E, K, n)
            rc = enc(r, cand.reshape(-1, dim)).reshape(episodes, candidates, -1)
            k = torch.argmin((rc - rg[:, None, :]).square().sum(-1), dim=1)     # (E,)
            if t == 0:
                first = k
            z = cand[torch.arange(episodes, device=z.device), k]
        d = (z - goal).norm(dim=1)
        true_sq = (z0 - goal).square().sum(1)
        pred_sq = (enc(r, z0) - rg).square().sum(1)
        results[name] = {"final_distance": float(d.mean()),
                         "final_distance_se": float(d.std() / math.sqrt(episodes)),
                         "first": first, "cost_error": float((pred_sq - true_sq).abs().mean())}
        if per_episode:
            results[name]["final_distances"] = d.cpu().tolist()
    ref_first, ref_dist = results["oracle"]["first"], results["oracle"]["final_distance"]
    for res in results.values():
        res["first_action_agreement"] = float((res.pop("first") == ref_first).double().mean())
        res["ratio_to_oracle"] = res["final_distance"] / ref_dist
    return results


def reps_from_checkpoint(path: str, device: str = "cpu") -> tuple[dict[str, Rep], int, dict[str, Any]]:
    """``(reps, dim, config)`` for a ``lejepa train`` checkpoint: oracle, encoder ``h(g(z))``, observation ``g(z)``."""
    import torch

    from .commands import load_checkpoint, load_error

    try:
        cfg, mix, enc = load_checkpoint(path, device)
    except ValueError:
        raise
    except Exception as exc:  # torch.load on a file that is not a checkpoint: pickle/zip/IO errors
        raise ValueError(f"{path!r} could not be loaded as a lejepa checkpoint: {load_error(exc)}") from None
    reps: dict[str, Rep] = {"oracle": lambda z: z,
                            "encoder": lambda z: enc(mix(z.to(torch.float32))),
                            "observation": lambda z: mix(z.to(torch.float32))}
    return reps, cfg["latent"]["dim"], cfg


def _plan_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--checkpoint", required=True, metavar="FILE", help="a checkpoint written by lejepa train")
    p.add_argument("--episodes", type=int, default=500)
    p.add_argument("--horizon", type=int, default=10)
    p.add_argument("--candidates", type=int, default=64)
    p.add_argument("--step", type=float, default=0.3, help="standard deviation of candidate actions")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, metavar="FILE", help="also write the results as JSON (atomically)")


def _plan_run(args: argparse.Namespace) -> int:
    """``lejepa plan``: every input and the ``--out`` path are checked before planning (exit 2, one
    line); a write that still fails at the end (disk full, removed directory) is one line too."""
    from .commands import atomic_write, check_out_file

    try:
        if not os.path.isfile(args.checkpoint):
            raise ValueError(f"checkpoint {args.checkpoint!r} does not exist")
        if args.out:
            check_out_file(args.out)
        reps, dim, cfg = reps_from_checkpoint(args.checkpoint)
        res = plan(reps, dim, episodes=args.episodes, horizon=args.horizon, candidates=args.candidates,
                   step=args.step, seed=args.seed)
    except ValueError as exc:
        print(f"lejepa plan: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.checkpoint}: {cfg['mixing']['kind']} mixing, n = {dim}, {args.episodes} episodes x "
          f"{args.horizon} steps, {args.candidates} candidates")
    print(f"{'representation':<14} {'final dist':>11} {'se':>7} {'/ oracle':>9} {'1st action = oracle':>20} {'cost error':>11}")
    for name, r in res.items():
        print(f"{name:<14} {r['final_distance']:>11.4f} {r['final_distance_se']:>7.4f} {r['ratio_to_oracle']:>9.4f} "
              f"{r['first_action_agreement']:>20.3f} {r['cost_error']:>11.4g}")
    if args.out:
        payload = {"checkpoint": os.path.abspath(args.checkpoint), "episodes": args.episodes,
                   "horizon": args.horizon, "candidates": args.candidates, "step": args.step,
                   "seed": args.seed, "results": res}
        try:
            atomic_write(args.out, lambda f: json.dump(payload, f, indent=2))
        except OSError as exc:
            print(f"lejepa plan: error: could not write --out {args.out!r}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0
