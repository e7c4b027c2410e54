"""The learned evaluator: each player's expected final score margin in a position.

>>> import random
>>> from azul import deal, new_game
>>> from research.learn.evaluator import load
>>> state = deal(new_game(2), rng=random.Random(1))
>>> margins = load(2).margins(state)  # [player 0's, player 1's], in points
>>> len(margins)
2

A player's margin is its final score minus the best opponent's. The model reads a position
through :func:`research.learn.features.features` (the player's view) and is either a ridge
regression or a one-hidden-layer MLP, with numpy alone (no training framework). Its weights are
kept in ``research/weights``, one file per player count (``margin-2p.npz``), with a JSON sidecar
(``margin-2p.json``): the command and seed that made them, the data, the training time and the
validation figures. They are made by ``research/learn`` (research/BOTS.md, "Learned evaluator (in
progress)"). No computer level uses the evaluator: it is research (issue #36's first step), kept
out of the rules library the site installs.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from azul.state import State
from research import WEIGHTS_DIR

from .features import feature_count, feature_rows

__all__ = ["WEIGHTS_DIR", "LearnedEvaluator", "available", "load", "weights_path"]

Array = npt.NDArray[np.float64]


def weights_path(players: int) -> Path:
    """The weights kept for ``players`` players (their sidecar: the same name, ``.json``)."""
    return WEIGHTS_DIR / f"margin-{players}p.npz"


def available() -> list[int]:
    """The player counts that have shipped weights."""
    return [n for n in (2, 3, 4) if weights_path(n).exists()]


class LearnedEvaluator:
    """A trained model of the final score margin for games of ``players`` players."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as data:
            self.kind = str(data["kind"])
            mean = data["mean"].astype(np.float64)
            std = data["std"].astype(np.float64)
            params = {k: data[k].astype(np.float64) for k in data.files if k[0] in "wb"}
        counts = [n for n in (2, 3, 4) if feature_count(n) == len(mean)]
        if not counts:
            raise ValueError(f"{path.name}: {len(mean)} features fit no player count")
        self.players = counts[0]
        sidecar = path.with_suffix(".json")
        self.info: dict[str, Any] = json.loads(sidecar.read_text()) if sidecar.exists() else {}
        # The inputs' standardisation folded into the first layer: one product per layer.
        first = params["w"] if self.kind == "ridge" else params["w1"]
        bias = params["b"] if self.kind == "ridge" else params["b1"]
        scaled = first / std[:, None] if first.ndim == 2 else first / std
        self._w1: Array = scaled
        self._b1: Array = bias - mean @ scaled
        if self.kind == "mlp":
            self._w2: Array = params["w2"]
            self._b2 = float(params["b2"][0])
        elif self.kind != "ridge":
            raise ValueError(f"{path.name}: unknown model kind {self.kind!r}")

    @property
    def weight_count(self) -> int:
        """Trained numbers in the model (its size)."""
        extra = self._w2.size + 1 if self.kind == "mlp" else 0
        return int(self._w1.size + self._b1.size + extra)

    def predict(self, rows: Array) -> Array:
        """Predicted margins of feature rows (one row per view, :func:`~.features.features`)."""
        if self.kind == "ridge":
            out: Array = rows @ self._w1 + self._b1
            return out
        hidden = np.tanh(rows @ self._w1 + self._b1)
        out = hidden @ self._w2 + self._b2
        return out

    def margins(self, state: State) -> list[float]:
        """Each player's expected final score margin (its score minus the best opponent's), in
        points, in seat order."""
        if state.players != self.players:
            raise ValueError(f"weights for {self.players} players, not {state.players}")
        rows = np.array(feature_rows(state), dtype=np.float64)
        return [float(v) for v in self.predict(rows)]

    def margin(self, state: State, player: int) -> float:
        """``player``'s expected final score margin, in points."""
        if state.players != self.players:
            raise ValueError(f"weights for {self.players} players, not {state.players}")
        rows = np.array(feature_rows(state, (player,)), dtype=np.float64)
        return float(self.predict(rows)[0])


@functools.cache
def load(players: int) -> LearnedEvaluator:
    """The shipped evaluator for ``players`` players (loaded once); FileNotFoundError if none
    ships for that count (:func:`available`)."""
    path = weights_path(players)
    if not path.exists():
        raise FileNotFoundError(f"no learned weights for {players} players ({path.name})")
    return LearnedEvaluator(path)
