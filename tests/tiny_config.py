"""The tiny training configuration the CLI tests share (2-D spiral, a few steps on the CPU).

One home for the YAML text that `test_results_on_disk`, `test_sweep`, `test_newuser_cli`,
`test_train_cli` and `test_resume` write; each test file states only what it changes.
"""

from __future__ import annotations

CPU_RUNTIME = "progress: false, device: cpu"


def tiny_yaml(*, width: int = 8, steps: int = 4, log_every: int = 2, eval_size: int = 128,
              eval_every: int = 2, loss: str = "", train: str = "",
              runtime: str | None = CPU_RUNTIME, tail: str = "") -> str:
    """The YAML text of a tiny SIGReg run on the 2-D spiral.

    `loss` and `train` are extra ``key: value`` items appended to those sections, `runtime` the
    body of the runtime section (None leaves it out), `tail` further YAML appended verbatim.
    """
    loss_items = "kind: sigreg, slices: 8" + (f", {loss}" if loss else "")
    train_items = f"steps: {steps}, batch: 32, log_every: {log_every}" + (f", {train}" if train else "")
    lines = [
        "latent: {dim: 2}",
        "mixing: {kind: spiral}",
        f"encoder: {{width: {width}, depth: 2}}",
        f"loss: {{{loss_items}}}",
        f"train: {{{train_items}}}",
        f"eval: {{size: {eval_size}, every: {eval_every}}}",
    ]
    if runtime is not None:
        lines.append(f"runtime: {{{runtime}}}")
    return "\n".join(lines) + "\n" + tail

