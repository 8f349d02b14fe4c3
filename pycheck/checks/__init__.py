"""Check modules for ``lejepa check``.

Each module here exposes ``rows(**options) -> list[pycheck.report.CheckRow]``. ``MODULES`` is the
print order; a module must be listed here to run.
"""

MODULES: list[str] = [
    "theorem1",       # Hermite / Mehler / spectral weights (Theorem 4.1)
    "theorem2",       # Sturm-Liouville uniqueness (Theorem 4.2)
    "dirichlet",      # Dirichlet-energy appendix
    "bounds",         # approximate identifiability (Theorem 4.3)
    "sigreg",         # SIGReg null mean, collapse value, collapse threshold of the penalised objective
    "lejepa_experiments.checks_trained",  # Theorem 4.3 on trained encoders (needs torch)
]
