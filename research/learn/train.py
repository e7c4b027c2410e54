"""Fit the learned evaluator's weights to self-play data (numpy only).

    python -m research.learn.train artifacts/learn/selfplay-2p.npz --seed 1 \\
        --out research/weights/margin-2p

The model predicts a player's final score margin from :func:`research.learn.features.features`: a
ridge regression (``--model ridge``) or a tiny MLP (``--model mlp``: one hidden layer of
``--hidden`` tanh units, Adam on the squared error, the epoch with the best validation error
kept). Inputs are standardised with the training rows' mean and spread (stored with the
weights). Whole games are held out for validation (``--validation``, by the seed), so that no
position of a validation game is seen in training.

Printed, on the validation rows: the root mean square and mean absolute error of the model and
of two baselines: the current score margin alone (fitted: a * margin + b on the training rows)
and the hand-written evaluation's margin (:mod:`azul.ai.evaluation`, fitted the same way).
``--out PATH`` writes ``PATH.npz`` (the weights) and ``PATH.json`` (the command, seed, data,
training time and the validation figures), which :mod:`research.learn.evaluator` loads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from research.learn.features import feature_count, feature_names

Array = npt.NDArray[np.float64]


def split_games(games: npt.NDArray[Any], share: float, seed: int) -> npt.NDArray[np.bool_]:
    """A mask of the rows whose game is held out for validation (``share`` of the games)."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    held = rng.choice(ids, size=max(1, round(share * len(ids))), replace=False)
    return np.isin(games, held)


def fit_line(x: Array, y: Array) -> tuple[float, float]:
    """Least squares a, b of y = a x + b."""
    design = np.stack([x, np.ones_like(x)], axis=1)
    (a, b), *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(a), float(b)


def errors(pred: Array, y: Array) -> dict[str, float]:
    diff = pred - y
    return {
        "rmse": round(float(np.sqrt(np.mean(diff * diff))), 3),
        "mae": round(float(np.mean(np.abs(diff))), 3),
    }


def train_ridge(x: Array, y: Array, alpha: float) -> dict[str, Array]:
    """Ridge regression on standardised inputs: weights ``w`` (features) and ``b``."""
    n, d = x.shape
    gram = x.T @ x + alpha * n * np.eye(d)
    w = np.linalg.solve(gram, x.T @ (y - y.mean()))
    return {"w": w, "b": np.array([y.mean()])}


def mlp_forward(params: dict[str, Array], x: Array) -> Array:
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    out: Array = hidden @ params["w2"] + params["b2"]
    return out


def train_mlp(
    x: Array,
    y: Array,
    xv: Array,
    yv: Array,
    *,
    hidden: int,
    epochs: int,
    seed: int,
    rate: float = 3e-3,
    batch: int = 256,
    decay: float = 1e-4,
) -> tuple[dict[str, Array], list[float]]:
    """A one-hidden-layer tanh MLP fitted by Adam; returns the parameters of the epoch with the
    lowest validation error and each epoch's validation RMSE."""
    rng = np.random.default_rng(seed)
    n, d = x.shape
    scale = float(y.std()) or 1.0
    target = (y - y.mean()) / scale
    params = {
        "w1": rng.normal(0.0, 1.0 / np.sqrt(d), (d, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
        "b2": np.zeros(1),
    }
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    best: dict[str, Array] = {}
    best_rmse = np.inf
    history = []
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, tb = x[idx], target[idx]
            h = np.tanh(xb @ params["w1"] + params["b1"])
            pred = h @ params["w2"] + params["b2"][0]
            g = 2.0 * (pred - tb) / len(idx)
            grads = {
                "w2": h.T @ g + decay * params["w2"],
                "b2": np.array([g.sum()]),
            }
            gh = np.outer(g, params["w2"]) * (1.0 - h * h)
            grads["w1"] = xb.T @ gh + decay * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k, grad in grads.items():
                m, v = moments[k]
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                mhat = m / (1 - beta1**step)
                vhat = v / (1 - beta2**step)
                params[k] -= rate * mhat / (np.sqrt(vhat) + eps)
        rmse = float(np.sqrt(np.mean((mlp_forward(params, xv) * scale + y.mean() - yv) ** 2)))
        history.append(round(rmse, 3))
        if rmse < best_rmse:
            best_rmse = rmse
            best = {k: v.copy() for k, v in params.items()}
    # fold the target's scaling into the output layer: the model predicts points
    best["w2"] = best["w2"] * scale
    best["b2"] = best["b2"] * scale + y.mean()
    return best, history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="selfplay .npz files (same players)")
    parser.add_argument("--model", choices=("ridge", "mlp"), default="mlp")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--alpha", type=float, default=1e-3, help="ridge penalty")
    parser.add_argument("--validation", type=float, default=0.2, help="share of games held out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write OUT.npz and OUT.json")
    args = parser.parse_args(argv)
    command = "python -m research.learn.train " + " ".join(sys.argv[1:] if argv is None else argv)

    parts = [np.load(path) for path in args.data]
    metas = [json.loads(str(p["meta"])) for p in parts]
    players = {m["players"] for m in metas}
    if len(players) != 1:
        raise SystemExit(f"the data files mix player counts: {sorted(players)}")
    count = players.pop()
    offset = 0
    games_list = []
    for p in parts:  # game ids are per file: make them distinct
        games_list.append(p["game"].astype(np.int64) + offset)
        offset += int(p["game"].max()) + 1
    x = np.concatenate([p["features"] for p in parts]).astype(np.float64)
    y = np.concatenate([p["margin"] for p in parts]).astype(np.float64)
    hand = np.concatenate([p["hand"] for p in parts]).astype(np.float64)
    now = np.concatenate([p["score_margin"] for p in parts]).astype(np.float64)
    games = np.concatenate(games_list)
    if x.shape[1] != feature_count(count):
        raise SystemExit(f"{x.shape[1]} features, expected {feature_count(count)}: stale data?")

    held = split_games(games, args.validation, args.seed)
    xt, yt, xv, yv = x[~held], y[~held], x[held], y[held]
    mean = xt.mean(axis=0)
    std = xt.std(axis=0)
    std[std < 1e-6] = 1.0
    zt, zv = (xt - mean) / std, (xv - mean) / std

    started = time.perf_counter()
    history: list[float] = []
    if args.model == "ridge":
        params = train_ridge(zt, yt, args.alpha)
        pred = zv @ params["w"] + params["b"][0]
        weights = int(params["w"].size + 1)
    else:
        params, history = train_mlp(
            zt, yt, zv, yv, hidden=args.hidden, epochs=args.epochs, seed=args.seed
        )
        pred = mlp_forward(params, zv)
        weights = int(sum(v.size for v in params.values()))
    seconds = time.perf_counter() - started

    baselines = {}
    for name, column in (("score_margin", now), ("hand_evaluation", hand)):
        a, b = fit_line(column[~held], yt)
        baselines[name] = {"a": round(a, 3), "b": round(b, 3), **errors(a * column[held] + b, yv)}
    figures: dict[str, Any] = {
        "command": command,
        "seed": args.seed,
        "model": args.model,
        "hidden": args.hidden if args.model == "mlp" else None,
        "weights": weights,
        "players": count,
        "features": int(x.shape[1]),
        "data": [
            {
                "file": p.name,
                "command": m.get("command"),
                "rows": m["rows"],
                "games": m["games"],
                "seconds": m.get("seconds"),
            }
            for p, m in zip(args.data, metas, strict=True)
        ],
        "rows": int(len(y)),
        "train_rows": int(len(yt)),
        "validation_rows": int(len(yv)),
        "validation_games": int(len(np.unique(games[held]))),
        "training_seconds": round(seconds, 3),
        "validation": errors(pred, yv),
        "label_std": round(float(yv.std()), 3),
        "baselines": baselines,
        "epochs_rmse": history,
        "numpy": np.__version__,
    }
    print(json.dumps({k: v for k, v in figures.items() if k != "data"}, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        contents: dict[str, Any] = {k: v.astype(np.float32) for k, v in params.items()}
        contents.update(
            kind=np.array(args.model),
            mean=mean.astype(np.float32),
            std=std.astype(np.float32),
            names=np.array(feature_names(count)),
        )
        np.savez_compressed(args.out.with_suffix(".npz"), **contents)
        args.out.with_suffix(".json").write_text(json.dumps(figures, indent=1) + "\n")
        print(f"wrote {args.out.with_suffix('.npz')} and {args.out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
