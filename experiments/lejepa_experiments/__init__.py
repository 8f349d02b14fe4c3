"""lejepa_experiments: training engine and the paper's experiments (needs the ``train`` extra).

Importing this package does not import torch; the modules that train do.
"""

__version__ = "0.1.0"
