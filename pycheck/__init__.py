"""pycheck: numerical cross-checks of *When Does LeJEPA Learn a World Model?*.

One module per mathematical object (``hermite``, ``mehler``, ``spectral``, ``bounds``,
``uniqueness``, ``dirichlet``); ``pycheck.checks`` gathers the rows that ``lejepa check``
prints. Importing pycheck never imports torch.
"""

__version__ = "0.1.0"
