"""Fit a small network's correction to the round-end tables' margin (issue #36), numpy only.

    python -m research.learn.residual artifacts/learn/roundend-2p-g5.npz \\
        --tables research/weights/roundend-2p.json --hidden 16 --seed 1 \\
        --out artifacts/learn/roundend-2p-residual.json
    python -m research.arena strong@1000:fitted=artifacts/learn/roundend-2p-residual.json \\
        strong@1000:fitted=research/weights/roundend-2p.json --games 200 --jobs 2 --quiet

The tables (``research/learn/roundend.py``) weigh each board's terms linearly, per rounds left, and
the search takes the margin between two boards' worths: no term of one board can change what
another's is worth. This tool fits :class:`azul.ai.evaluation.MarginResidual` (one hidden tanh
layer over both boards' terms and the rounds left, antisymmetric: what it adds to one player's
margin it takes from the other's) to what the tables' margin missed of the final margin, on the
round ends of ``roundend play`` data (2 players). Whole games are held out for validation; the
epoch with the lowest validation error is kept (the network starts near zero: the tables'
margin). Printed: validation RMSE of the final margin, the tables' and with the correction, per
rounds left. ``--label search`` learns the search's margin instead (``roundend play
--label-iterations``: a label from the search's own results), still scored on held-out games
against the final margin. ``--out`` writes the tables' buckets with the ``residual`` beside
them, which :func:`azul.ai.evaluation.load_round_end_tables` reads and the arena plays.
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

from azul.ai.evaluation import CONTEXT_FEATURES, RoundEndTables, context_terms
from azul.state import State

from .roundend import BUCKETS, load, rival_rows, rmse, split_games

Array = npt.NDArray[np.float64]


def tables_margin(data: dict[str, npt.NDArray[Any]], buckets: dict[int, Any]) -> Array:
    """Each row's worth by the tables (``buckets`` of a tables file) minus its rival's: the
    search's margin, from :attr:`RoundEndTables.vectors`, the weights it uses."""
    tables = RoundEndTables.from_buckets(buckets, "tables")
    x, bucket = data["features"], data["bucket"].astype(int)
    worth = np.zeros(len(bucket))
    for b in np.unique(bucket):
        rows = bucket == b
        worth[rows] = x[rows] @ np.array(tables.vectors[b]) + tables.base[b]
    return worth - worth[rival_rows(data)]


def context(data: dict[str, npt.NDArray[Any]]) -> Array:
    """Each row's :data:`CONTEXT_FEATURES`, from its round end's recorded state."""
    if "states" not in data:
        raise SystemExit("--context: the data has no states (played before they were recorded)")
    out = np.zeros((len(data["event"]), len(CONTEXT_FEATURES)))
    states: dict[int, State] = {}
    for i, (event, player) in enumerate(zip(data["event"], data["player"], strict=True)):
        state = states.get(int(event))
        if state is None:
            state = states[int(event)] = State.from_dict(json.loads(str(data["states"][event])))
        out[i] = context_terms(state, int(player))
    return out


def inputs(data: dict[str, npt.NDArray[Any]], with_context: bool = False) -> tuple[Array, Array]:
    """The network's inputs for each row, the player's board first and its rival's first
    (each board's terms, then with ``with_context`` its :data:`CONTEXT_FEATURES`)."""
    x, rival = data["features"], rival_rows(data)
    if with_context:
        x = np.hstack([x, context(data)])
    onehot = np.eye(4)[np.clip(data["bucket"].astype(int), 1, 4) - 1]
    return np.hstack([x, x[rival], onehot]), np.hstack([x[rival], x, onehot])


def train(
    mine: Array,
    theirs: Array,
    target: Array,
    held: npt.NDArray[np.bool_],
    *,
    hidden: int,
    epochs: int,
    seed: int,
    rate: float = 0.003,
    decay: float = 1e-4,
    batch: int = 256,
    check: Array | None = None,
) -> tuple[dict[str, Array], list[float]]:
    """Adam on the squared error of ``g(mine) - g(theirs)`` to ``target`` over the rows not
    ``held`` (and where ``target`` is known: NaN rows are skipped); the parameters
    (normalisation folded in) of the epoch with the lowest error on the held rows against
    ``check`` (default: ``target``), and each epoch's held-out RMSE."""
    rng = np.random.default_rng(seed)
    check = target if check is None else check
    train_rows = np.flatnonzero(~held & np.isfinite(target))
    both = np.vstack([mine[train_rows], theirs[train_rows]])
    mean, scale = both.mean(axis=0), both.std(axis=0)
    mean[-4:], scale[-4:] = 0.0, 1.0  # the one-hot rounds stay as they are
    scale[scale < 1e-6] = 1.0
    a, b = (mine - mean) / scale, (theirs - mean) / scale
    width = a.shape[1]
    params = {
        "w": rng.normal(0, 1 / np.sqrt(width), (hidden, width)),
        "c": np.zeros(hidden),
        "v": rng.normal(0, 0.01, hidden),
    }
    moments = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in params.items()}
    step = 0

    def forward(p: dict[str, Array], rows: npt.NDArray[np.intp]) -> tuple[Array, Array, Array]:
        ha = np.tanh(a[rows] @ p["w"].T + p["c"])
        hb = np.tanh(b[rows] @ p["w"].T + p["c"])
        return (ha - hb) @ p["v"], ha, hb

    held_rows = np.flatnonzero(held)
    best = (np.inf, {k: v.copy() for k, v in params.items()})
    history = []
    for _ in range(epochs):
        order = rng.permutation(train_rows)
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            out, ha, hb = forward(params, rows)
            err = (out - target[rows]) * (2 / len(rows))
            da = np.outer(err, params["v"]) * (1 - ha**2)
            db = -np.outer(err, params["v"]) * (1 - hb**2)
            grads = {
                "v": (ha - hb).T @ err + decay * params["v"],
                "w": da.T @ a[rows] + db.T @ b[rows] + decay * params["w"],
                "c": da.sum(axis=0) + db.sum(axis=0),
            }
            step += 1
            for k, g in grads.items():
                m, s = moments[k]
                m *= 0.9
                m += 0.1 * g
                s *= 0.999
                s += 0.001 * g * g
                params[k] -= rate * (m / (1 - 0.9**step)) / (np.sqrt(s / (1 - 0.999**step)) + 1e-8)
        score = rmse(forward(params, held_rows)[0], check[held_rows])
        history.append(score)
        if score < best[0]:
            best = (score, {k: v.copy() for k, v in params.items()})
    chosen = best[1]
    folded = {  # w (x - mean) / scale + c  ==  (w / scale) x + (c - w mean / scale)
        "hidden": chosen["w"] / scale,
        "bias": chosen["c"] - (chosen["w"] / scale) @ mean,
        "out": chosen["v"],
    }
    return folded, history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.learn.residual", description=__doc__)
    parser.add_argument("data", nargs="+", type=Path, help="roundend play files (2 players)")
    parser.add_argument("--tables", required=True, type=Path, help="the tables it corrects")
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--rate", type=float, default=0.003)
    parser.add_argument("--decay", type=float, default=1e-4)
    parser.add_argument("--validation", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--context", action="store_true", help="also read each board's context terms"
    )
    parser.add_argument(
        "--label",
        choices=("margin", "search"),
        default="margin",
        help="what it learns: the final margin, or the next search's margin (roundend play's"
        " 'search'; held-out games are still scored against the final margin)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    data, metas = load(args.data)
    if metas[0]["players"] != 2:
        print("the margin residual is for 2-player games", file=sys.stderr)
        return 2
    tables = json.loads(args.tables.read_text())
    buckets = {int(k): v for k, v in tables["buckets"].items()}
    base_margin = tables_margin(data, buckets)
    if args.label == "search" and "search" not in data:
        print(
            "--label search: the data has no search labels (played before they were kept)",
            file=sys.stderr,
        )
        return 2
    check = data["margin"] - base_margin
    target = data[args.label] - base_margin
    held = split_games(data["game"], args.validation, args.seed)
    mine, theirs = inputs(data, args.context)
    started = time.process_time()
    net, history = train(
        mine,
        theirs,
        target,
        held,
        hidden=args.hidden,
        epochs=args.epochs,
        seed=args.seed,
        rate=args.rate,
        decay=args.decay,
        check=check,
    )
    seconds = time.process_time() - started
    a = np.tanh(mine @ net["hidden"].T + net["bias"]) @ net["out"]
    b = np.tanh(theirs @ net["hidden"].T + net["bias"]) @ net["out"]
    corrected = base_margin + a - b
    figures: dict[str, Any] = {
        "command": "python -m research.learn.residual "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "data": [str(p) for p in args.data],
        "rows": int(len(target)),
        "validation_rows": int(held.sum()),
        "validation_games": int(len(np.unique(data["game"][held]))),
        "label": args.label,
        "hidden": args.hidden,
        "context": list(CONTEXT_FEATURES) if args.context else [],
        "weights": int(net["hidden"].size + net["bias"].size + net["out"].size),
        "training_cpu_seconds": round(seconds, 1),
        "best_epoch": int(np.argmin(history)) + 1,
        "per_bucket": {},
    }
    print(
        f"{figures['rows']} rows, {figures['validation_rows']} held out"
        f" ({figures['validation_games']} games); {args.hidden} hidden,"
        f" {figures['weights']} weights, {seconds:.1f} s, best epoch {figures['best_epoch']}"
        f" of {args.epochs}"
    )
    print("bucket   rows  margin std  tables  corrected")
    for name, mask in [*((str(b), held & (data["bucket"] == b)) for b in BUCKETS), ("all", held)]:
        if not mask.any():
            continue
        y = data["margin"][mask]
        entry = {
            "rows": int(mask.sum()),
            "margin_std": round(float(y.std()), 3),
            "tables": rmse(base_margin[mask], y),
            "corrected": rmse(corrected[mask], y),
        }
        figures["per_bucket"][name] = entry
        print(
            f"{name:>6} {entry['rows']:6d}  {entry['margin_std']:10.2f}"
            f"  {entry['tables']:6.2f}  {entry['corrected']:9.2f}"
        )
    if args.out:
        out = {
            "buckets": tables["buckets"],
            "tables": str(args.tables),
            "residual": {k: np.round(v, 6).tolist() for k, v in net.items()},
            "residual_figures": figures,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
