"""Research on the computer players, apart from the product: the arena, the engine's benchmark,
the calibration of the levels, the analysis's accuracy, the tuning and training tools
(``research.learn``), the evaluators and weights no level plays by (``research/weights``) and
their notes (``research/BOTS.md``). Run from the checkout (``python -m research.arena``), never
installed; it imports the rules library (``azul``) only, and the site never imports it
(pyproject.toml's import contracts). See research/README.md."""

from pathlib import Path

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
"""Weights made here that no level plays by: the learned evaluator's (``margin-{n}p``) and the
plain 2-player round-end tables (``roundend-2p.json``) that the levels' file repeats under its
correction (``azul/ai/weights/roundend-2p-residual.json``)."""
