"""Fit the search's round-end evaluation to self-play data (issue #36: a stronger ``strong`` at
equal CPU). numpy only.

    python -m research.learn.roundend play --games 2000 --iterations 300 --seed 1 --jobs 2 \\
        --max-seconds 1500 --out artifacts/learn/roundend-2p.npz
    python -m research.learn.roundend fit artifacts/learn/roundend-2p.npz --ridge 100 \\
        --out artifacts/learn/roundend-2p-score.json
    python -m research.learn.roundend speed artifacts/learn/roundend-2p-score.json
    python -m research.arena strong@1000:fitted=artifacts/learn/roundend-2p-score.json \\
        strong@1000 --games 200 --jobs 2 --quiet

The search judges the position where a rollout stops (the end of a round, after the wall
tiling and floor penalties, before the next deal) by :func:`azul.ai.evaluation.evaluate_board`:
hand-set weights for the score, each end-of-game bonus (its share ``chance**need``), wall
adjacency, tiles waiting on pattern lines and the first-player marker. This tool fits those
same terms to what players went on to score, so that a fitted evaluation costs what the
hand-written one does (equal iterations are equal CPU).

``play``: self-play games between ``strong`` players at a small fixed number of iterations
(``--iterations``: the same games for the same seed on any machine, whatever its load; ``--jobs``
processes), searching by the hand-written evaluation or by fitted tables (``--fitted PATH``: a
next generation's data, from the fitted player; ``--fitted none,PATH``: the seats take each in
turn, so that the data is not one player's self-play). At every round end that does not finish the
game, each board is a row of :data:`FEATURES` (:func:`azul.ai.evaluation.board_terms`: rows,
columns and colours missing 0-4 tiles, adjacency pairs, waiting tiles, lines missing one, the
next round's starter, the score; and :func:`azul.ai.evaluation.line_terms`: the wall points
the waiting lines' tiles would score, by how full each line is, and the tiles they still need,
which the hand-written evaluation does not weigh), with its rounds-left bucket
(:func:`azul.ai.evaluation.rounds_left`), the hand-written worth, and the labels: that player's
final score and final margin (its score minus the best opponent's), and with
``--label-iterations N`` the margin a search of N iterations (by ``--label-tables``, apart from
the game's) expects after the next deal (``search``: a label from the search's own results,
the way TD learning bootstraps, with less noise than the game's end). A compressed ``.npz``
with a ``meta`` JSON text (command, seed, figures).

``fit``: per rounds-left bucket, ridge regression of the final score (``--label score``), the
final margin (``--label margin``: the row's terms minus its main rival's, that is the opponent
the hand-written evaluation rates highest) or the search's margin (``--label search``, on the
rows that have one; validation still against the final margin) on those terms, shrunk toward
the hand-written weights (``--ridge``: the penalty on the squared distance to them, in rows;
the intercept is free; ``--drop NAME`` leaves a feature out, to compare on the same rows). The
score's weight stays 1 (points scored are part of the final score; fitted freely with
``--free-score`` it is confounded with the wall's terms). Whole games are held out for
validation (``--validation``, by the seed). Printed, per bucket and overall: the validation
RMSE of the final score and of the final margin, for the hand-written worth (fitted with a
scale and offset per bucket) and for the fitted tables. ``--out`` writes the tables as JSON
(``buckets``: rounds left -> terms, beside the figures) that
:func:`azul.ai.evaluation.load_round_end_tables` reads; the arena plays them with a seat such as
``strong:fitted=PATH``.

``speed``: the strong search's iterations per CPU second with the hand-written evaluation (or
``--baseline`` tables) and with fitted tables, on the same positions at fixed iterations (equal
iterations are equal CPU only if these match).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from azul import new_game, play, result
from azul.ai.bots import LEVELS, choose_move_with_stats
from azul.ai.evaluation import (
    BONUS_KINDS,
    BONUS_NEEDS,
    DEFAULT,
    ROUND_END_FEATURES,
    Weights,
    board_vector,
    bonus_potential,
    load_round_end_tables,
    rounds_left,
    worths,
)
from azul.mechanics import apply_deal, draw, tally
from azul.state import State
from azul.tiling import COLOR_BONUS, COLUMN_BONUS, ROW_BONUS

Array = npt.NDArray[np.float64]

BONUSES = {"row": ROW_BONUS, "column": COLUMN_BONUS, "colour": COLOR_BONUS}
"""Each bonus kind's points at the end of the game."""
NEEDS = BONUS_NEEDS
FEATURES = ROUND_END_FEATURES
"""A board's terms at a round end, in the order of the data's ``features`` columns."""
BUCKETS = (1, 2, 3, 4)
"""Rounds left at a round end that does not finish the game: 1-4 (after the first round the
fullest wall row holds at least one tile, and a full one ends the game)."""


# -- play ------------------------------------------------------------------------------------------


def board_features(state: State, player: int) -> list[float]:
    """:data:`FEATURES` of ``player``'s board in ``state`` (a round end)."""
    starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
    return board_vector(state.boards[player], state.gray, player == starter)


def play_game(
    task: tuple[int, int, int, str, int, tuple[str | None, ...], int, str | None],
) -> dict[str, Any]:
    """One self-play game (``task``: seed, game number, players, variant, iterations a move,
    the fitted tables the players search with, None for the hand-written evaluation, taken in
    turn by the seats: player ``p`` of game ``g`` takes the ``(g + p) % len(tables)``-th; and
    the label search's iterations, 0 for none, and tables) and its round-end rows: each board's
    features, bucket, hand-written worth, and final score and margin; the search's label
    (``search``, NaN without a label search: after the next deal, a search of that many
    iterations by those tables, apart from the game's, expects the player to move first a final
    margin; that player's row takes it, and in a 2-player game its rival's row the opposite, a
    third player's row NaN); and each round end's state (``State.to_dict`` JSON, one per
    ``event``: features that the rows do not hold can be computed from it later). Deterministic
    for the task; the label search draws on its own random numbers, so the game is the same
    with or without it."""
    seed, game, players, variant, iterations, tables, label_iterations, label_tables = task
    # The level's own weights, without the tables it may now play by: "none" stays the
    # hand-written evaluation whatever strong plays the site's games by.
    by_hand = LEVELS["strong"].weights
    choices = [
        by_hand if t is None else replace(by_hand, fitted=load_round_end_tables(t)) for t in tables
    ]
    seat_weights = [choices[(game + p) % len(choices)] for p in range(players)]
    label_weights = (
        by_hand
        if label_tables is None
        else replace(by_hand, fitted=load_round_end_tables(label_tables))
    )
    rng = random.Random(f"roundend:{seed}:{game}")
    state = new_game(players, variant, first_player=rng.randrange(players))
    rows: list[list[float]] = []
    buckets: list[int] = []
    hand: list[float] = []
    player_of: list[int] = []
    round_of: list[int] = []
    event: list[int] = []
    states: list[str] = []
    searched: list[float] = []
    ends = 0
    while state.phase != "over":
        if state.phase == "deal":
            first_row = len(rows)
            if state.round >= 1:  # a round end the game goes on from: what a rollout judges
                rounds = rounds_left(state)
                values = worths(state, rounds, DEFAULT)
                for player in range(players):
                    rows.append(board_features(state, player))
                    buckets.append(rounds)
                    hand.append(values[player])
                    player_of.append(player)
                    round_of.append(state.round)
                    event.append(ends)
                    searched.append(math.nan)
                states.append(json.dumps(state.to_dict(), separators=(",", ":")))
                ends += 1
            state = state.copy()
            apply_deal(state, [tally(f) for f in draw(state, rng)])
            if label_iterations and len(rows) > first_row:
                mover = state.to_move[0]
                move, stats = choose_move_with_stats(
                    state,
                    mover,
                    "strong",
                    seed=random.Random(f"label:{seed}:{game}:{ends}").randrange(1 << 30),
                    iterations=label_iterations,
                    weights=label_weights,
                )
                expected = stats.margins.get(move, math.nan)
                for row in range(first_row, len(rows)):
                    if player_of[row] == mover:
                        searched[row] = expected
                    elif players == 2:
                        searched[row] = -expected
            continue
        player = state.to_move[0]
        move, _ = choose_move_with_stats(
            state,
            player,
            "strong",
            seed=rng.randrange(1 << 30),
            iterations=iterations,
            weights=seat_weights[player],
        )
        state = play(state, move, player)
    final = [float(s.score) for s in sorted(result(state).standings, key=lambda s: s.player)]
    margins = [f - max(g for q, g in enumerate(final) if q != p) for p, f in enumerate(final)]
    return {
        "game": game,
        "features": rows,
        "bucket": buckets,
        "hand": hand,
        "player": player_of,
        "round": round_of,
        "event": event,
        "states": states,
        "final": [final[p] for p in player_of],
        "margin": [margins[p] for p in player_of],
        "search": searched,
        "rounds": state.round,
        "scores": final,
    }


def generate(
    *,
    games: int,
    players: int,
    seed: int,
    iterations: int,
    variant: str = "colored",
    jobs: int = 1,
    max_seconds: float | None = None,
    progress: bool = False,
    fitted: str | None = None,
    label_iterations: int = 0,
    label_tables: str | None = None,
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """Play ``games`` games (in ``jobs`` processes) and return (arrays, figures). Game ``i`` is
    the same whatever ``jobs`` and ``max_seconds`` (after which no further game is kept).
    ``fitted``: the players search with these tables (a next generation's data); several,
    comma-separated, are taken by the seats in turn (``none``: the hand-written evaluation)."""
    tables = tuple(
        None if t.strip().lower() == "none" else t.strip() for t in (fitted or "none").split(",")
    )
    label = None if label_tables in (None, "none") else label_tables
    tasks = [
        (seed, game, players, variant, iterations, tables, label_iterations, label)
        for game in range(games)
    ]
    started = time.perf_counter()
    played: list[dict[str, Any]] = []

    def collect(results: Iterable[dict[str, Any]]) -> None:
        for one in results:
            played.append(one)
            if progress and len(played) % 10 == 0:
                elapsed = time.perf_counter() - started
                print(f"{len(played)} games, {elapsed:.0f} s", file=sys.stderr, flush=True)
            if max_seconds is not None and time.perf_counter() - started > max_seconds:
                break

    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            collect(pool.imap(play_game, tasks))  # in order: the first games, whatever the limit
    else:
        collect(map(play_game, tasks))
    arrays = _stack(played)
    figures = {
        "games": len(played),
        "players": players,
        "variant": variant,
        "seed": seed,
        "iterations": iterations,
        "fitted": fitted,
        "label_iterations": label_iterations,
        "label_tables": label,
        "rows": int(len(arrays["final"])),
        "features": list(FEATURES),
        "seconds": round(time.perf_counter() - started, 1),
        "average_final_score": round(
            float(np.mean([score for one in played for score in one["scores"]])), 2
        )
        if played
        else None,
    }
    return arrays, figures


def _stack(played: Sequence[dict[str, Any]]) -> dict[str, npt.NDArray[Any]]:
    """The games' rows as arrays; ``event`` (one round end of one game) made unique."""
    width = len(FEATURES)
    out: dict[str, list[Any]] = {k: [] for k in ("bucket", "hand", "player", "round", "final")}
    out.update(features=[], margin=[], search=[], game=[], event=[], states=[])
    events = 0
    for one in played:
        out["states"].extend(one["states"])
        for key in ("features", "bucket", "hand", "player", "round", "final", "margin", "search"):
            out[key].extend(one[key])
        out["game"].extend([one["game"]] * len(one["bucket"]))
        out["event"].extend(events + e for e in one["event"])
        events += max(one["event"], default=-1) + 1
    return {
        "features": np.array(out["features"], dtype=np.float64).reshape(-1, width),
        "bucket": np.array(out["bucket"], dtype=np.int8),
        "hand": np.array(out["hand"], dtype=np.float64),
        "player": np.array(out["player"], dtype=np.int8),
        "round": np.array(out["round"], dtype=np.int8),
        "final": np.array(out["final"], dtype=np.float64),
        "margin": np.array(out["margin"], dtype=np.float64),
        "search": np.array(out["search"], dtype=np.float64),
        "game": np.array(out["game"], dtype=np.int32),
        "event": np.array(out["event"], dtype=np.int32),
        "states": np.array(out["states"], dtype=np.str_),
    }


# -- fit -------------------------------------------------------------------------------------------


def hand_weights(rounds: int, weights: Weights = DEFAULT) -> Array:
    """The hand-written evaluation's weight of each of :data:`FEATURES` with ``rounds`` left
    (the prior the fit shrinks toward)."""
    potential = bonus_potential(weights.chance)[rounds]
    values = {
        "score": 1.0,
        "adjacency": weights.adjacency,
        "partial_line": weights.partial_line,
        "near_line": weights.near_line,
        "marker": weights.marker,
        "line_points": 0.0,  # not in the hand-written evaluation
        "line_room": 0.0,
    }
    for kind in BONUS_KINDS:
        for need in NEEDS[kind]:
            values[f"{kind}{need}"] = BONUSES[kind] * potential[need]
    return np.array([values[name] for name in FEATURES])


def ridge_toward(x: Array, y: Array, prior: Array, penalty: float) -> tuple[Array, float]:
    """Weights ``w`` and intercept ``b`` minimising ``|x w + b - y|^2 + penalty |w - prior|^2``
    (the intercept is not penalised)."""
    n, d = x.shape
    design = np.hstack([x, np.ones((n, 1))])
    shrink = penalty * np.eye(d + 1)
    shrink[d, d] = 0.0
    target = np.append(prior, 0.0)
    solution = np.linalg.solve(design.T @ design + shrink, design.T @ y + shrink @ target)
    return solution[:d], float(solution[d])


def rival_rows(data: dict[str, npt.NDArray[Any]]) -> npt.NDArray[np.int64]:
    """For each row, the row of its main rival at the same round end: the opponent with the
    highest hand-written worth (the one opponent, with 2 players)."""
    rival = np.empty(len(data["event"]), dtype=np.int64)
    order = np.argsort(data["event"], kind="stable")
    events = data["event"][order]
    starts = np.flatnonzero(np.r_[True, events[1:] != events[:-1]])
    ends = np.r_[starts[1:], len(order)]
    for start, end in zip(starts, ends, strict=True):
        rows = order[start:end]
        for row in rows:
            others = [r for r in rows if r != row]
            rival[row] = max(others, key=lambda r: data["hand"][r]) if others else row
    return rival


def predicted_margins(worth: Array, event: npt.NDArray[Any]) -> Array:
    """Each row's worth minus the best other worth at the same round end (as the search does)."""
    out = np.empty_like(worth)
    for e in np.unique(event):
        rows = np.flatnonzero(event == e)
        for row in rows:
            out[row] = worth[row] - max(worth[r] for r in rows if r != row)
    return out


def split_games(games: npt.NDArray[Any], share: float, seed: int) -> npt.NDArray[np.bool_]:
    """A mask of the rows whose game is held out for validation (``share`` of the games)."""
    ids = np.unique(games)
    held = np.random.default_rng(seed).choice(
        ids, size=max(1, round(share * len(ids))), replace=False
    )
    return np.isin(games, held)


def rmse(pred: Array, y: Array) -> float:
    return round(float(np.sqrt(np.mean((pred - y) ** 2))), 3) if len(y) else float("nan")


def fit(
    data: dict[str, npt.NDArray[Any]],
    *,
    label: str = "score",
    penalty: float = 30.0,
    validation: float = 0.2,
    seed: int = 1,
    merge: bool = False,
    free_score: bool = False,
    drop: Sequence[str] = (),
) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    """Fit each bucket's weights (see the module docstring); returns (buckets for
    :meth:`azul.ai.evaluation.RoundEndTables.from_buckets`, validation figures). ``merge``:
    one fit for buckets 1-2 and one for 3-4 (fewer weights, more rows each). The score's weight
    is 1 unless ``free_score``: fitted freely, it drifts to the terms it is confounded with
    (after one round the score is about the wall's tiles and adjacency, and the fit weighed it
    0), and a search would then not see a floor penalty. ``drop``: features left out (their
    column zeroed: their weight stays the hand's), to compare fits with and without them on
    the same rows."""
    if label == "search" and not np.isfinite(data.get("search", np.array([]))).any():
        raise SystemExit("--label search: the data has no search labels (play --label-iterations)")
    x, bucket, event = data["features"], data["bucket"].astype(int), data["event"]
    if drop:
        x = x.copy()
        x[:, [FEATURES.index(name) for name in drop]] = 0.0
    held = split_games(data["game"], validation, seed)
    rival = rival_rows(data)
    groups = {1: (1, 2), 2: (1, 2), 3: (3, 4), 4: (3, 4)} if merge else {b: (b,) for b in BUCKETS}
    fitted_worth = np.zeros(len(bucket))
    hand_score = np.zeros(len(bucket))
    hand_margin = np.zeros(len(bucket))
    hand_margin_raw = data["hand"] - data["hand"][rival]
    buckets: dict[int, dict[str, Any]] = {}
    for b in BUCKETS:
        rows = np.isin(bucket, groups[b])
        train = rows & ~held
        if label == "search":  # the rows a label search reached
            train &= np.isfinite(data["search"])
        if train.sum() < len(FEATURES) + 1:
            continue
        prior = hand_weights(b)
        if label == "score":
            design, target = x[train], data["final"][train]
        else:  # a margin: the row's terms against its rival's; the intercept cancels
            design, target = x[train] - x[rival[train]], data[label][train]
        if free_score:
            w, intercept = ridge_toward(design, target, prior, penalty)
        else:  # points scored are part of the final score: weight 1, fit what comes on top
            rest, intercept = ridge_toward(design[:, 1:], target - design[:, 0], prior[1:], penalty)
            w = np.concatenate([[1.0], rest])
        if label != "score":
            intercept = 0.0
        mine = bucket == b
        fitted_worth[mine] = x[mine] @ w + intercept
        for column, target, out in (
            (data["hand"], data["final"], hand_score),
            (hand_margin_raw, data["margin"], hand_margin),
        ):
            design = np.stack([column[train], np.ones(int(train.sum()))], axis=1)
            (a, c), *_ = np.linalg.lstsq(design, target[train], rcond=None)
            out[mine] = a * column[mine] + c
        buckets[b] = tables_entry(w, intercept, b)
    fitted_margin = predicted_margins(fitted_worth, event)
    figures: dict[str, Any] = {
        "label": label,
        "ridge": penalty,
        "merge": merge,
        "free_score": free_score,
        "dropped": list(drop),
        "rows": int(len(bucket)),
        "train_rows": int((~held).sum()),
        "validation_rows": int(held.sum()),
        "validation_games": int(len(np.unique(data["game"][held]))),
        "per_bucket": {},
    }
    for name, mask in [("all", held), *((str(b), held & (bucket == b)) for b in BUCKETS)]:
        if not mask.any():
            continue
        final, margin = data["final"][mask], data["margin"][mask]
        entry = {
            "rows": int(mask.sum()),
            "score_std": round(float(final.std()), 3),
            "score_hand": rmse(hand_score[mask], final),
            "score_fitted": rmse(fitted_worth[mask], final) if label == "score" else None,
            "margin_std": round(float(margin.std()), 3),
            "margin_hand": rmse(hand_margin[mask], margin),
            "margin_fitted": rmse(fitted_margin[mask], margin),
        }
        if name == "all":
            figures["validation"] = entry
        else:
            figures["per_bucket"][name] = entry
    return buckets, figures


def tables_entry(w: Array, intercept: float, rounds: int) -> dict[str, Any]:
    """One bucket of the JSON tables from fitted weights over :data:`FEATURES`."""
    named = dict(zip(FEATURES, (float(v) for v in w), strict=True))
    entry: dict[str, Any] = {
        "score": named["score"],
        "base": intercept,
        "adjacency": named["adjacency"],
        "partial_line": named["partial_line"],
        "near_line": named["near_line"],
        "marker": named["marker"],
        "line_points": named["line_points"],
        "line_room": named["line_room"],
    }
    for kind in BONUS_KINDS:
        # missing 5: the reference (0); a complete row ends the game: its bonus is certain
        table = [float(BONUSES[kind])] + [0.0] * 5
        for need in NEEDS[kind]:
            table[need] = named[f"{kind}{need}"]
        entry[kind] = [round(v, 4) for v in table]
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in entry.items()}


def load(paths: Sequence[Path]) -> tuple[dict[str, npt.NDArray[Any]], list[dict[str, Any]]]:
    """The rows of ``play`` files, concatenated (game and event numbers made distinct)."""
    parts = [np.load(path) for path in paths]
    metas = [json.loads(str(p["meta"])) for p in parts]
    if len({m["players"] for m in metas}) != 1:
        raise SystemExit("the data files mix player counts")
    for path, meta in zip(paths, metas, strict=True):
        if meta.get("features") != list(FEATURES):
            raise SystemExit(
                f"{path}: recorded with other features ({len(meta.get('features') or [])},"
                f" this tool has {len(FEATURES)}): play it again"
            )
    data: dict[str, list[npt.NDArray[Any]]] = {}
    game_offset = event_offset = 0
    shared = set.intersection(*(set(p.files) for p in parts)) - {"meta"}  # older files lack some
    for p in parts:
        for key in p.files:
            if key not in shared:
                continue
            values = p[key]
            if key == "game":
                values = values.astype(np.int64) + game_offset
            if key == "event":
                values = values.astype(np.int64) + event_offset
            data.setdefault(key, []).append(values)
        game_offset += int(p["game"].max()) + 1 if len(p["game"]) else 0
        event_offset += int(p["event"].max()) + 1 if len(p["event"]) else 0
    return {k: np.concatenate(v) for k, v in data.items()}, metas


def _print_figures(figures: dict[str, Any]) -> None:
    print(
        f"label {figures['label']}, ridge {figures['ridge']}, merge {figures['merge']},"
        f" free score {figures['free_score']}:"
        f" {figures['rows']} rows, {figures['validation_rows']} held out"
        f" ({figures['validation_games']} games)"
    )
    print("bucket   rows  score: std   hand  fitted   margin: std   hand  fitted")
    for name, entry in [*figures["per_bucket"].items(), ("all", figures["validation"])]:
        fitted = entry["score_fitted"]
        print(
            f"{name:>6} {entry['rows']:6d}  {entry['score_std']:10.2f} {entry['score_hand']:6.2f}"
            f"  {'-' if fitted is None else f'{fitted:6.2f}':>6}"
            f"  {entry['margin_std']:11.2f} {entry['margin_hand']:6.2f}"
            f"  {entry['margin_fitted']:6.2f}"
        )


# -- speed -----------------------------------------------------------------------------------------


def speed_positions(count: int, players: int, seed: int) -> list[State]:
    """``count`` factory-offer positions from greedy games (every round, early and late)."""
    rng = random.Random(f"speed:{seed}")
    states: list[State] = []
    while len(states) < count:
        state = new_game(players, "colored", first_player=rng.randrange(players))
        while state.phase != "over" and len(states) < count:
            if state.phase == "deal":
                state = state.copy()
                apply_deal(state, [tally(f) for f in draw(state, rng)])
                continue
            player = state.to_move[0]
            if state.phase == "take" and rng.random() < 0.3:
                states.append(state)
            move, _ = choose_move_with_stats(state, player, "greedy", seed=rng.randrange(1 << 30))
            state = play(state, move, player)
    return states


def measure_speed(
    tables: Path,
    *,
    positions: int,
    iterations: int,
    repeats: int,
    players: int,
    seed: int,
    baseline: Path | None = None,
) -> dict[str, float]:
    """CPU seconds per search iteration of ``strong`` with the hand-written (or the
    ``baseline`` tables') and with the fitted evaluation, on the same positions, alternating
    (so that a change in the machine's load touches both alike); the best of ``repeats`` runs
    each: iterations a CPU second, ``baseline`` and ``fitted``, and their ratio."""
    fitted = Weights(fitted=load_round_end_tables(str(tables)))
    first = DEFAULT if baseline is None else Weights(fitted=load_round_end_tables(str(baseline)))
    states = speed_positions(positions, players, seed)
    best = {"baseline": float("inf"), "fitted": float("inf")}
    for _ in range(repeats):
        for name, weights in (("baseline", first), ("fitted", fitted)):
            cpu = time.process_time()
            for i, state in enumerate(states):
                choose_move_with_stats(
                    state, state.current, "strong", seed=i, iterations=iterations, weights=weights
                )
            best[name] = min(best[name], time.process_time() - cpu)
    total = positions * iterations
    out = {name: round(total / seconds, 1) for name, seconds in best.items()}
    out["fitted_over_baseline"] = round(out["fitted"] / out["baseline"], 4)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.learn.roundend",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    play_parser = commands.add_parser("play", help="self-play games: round-end rows")
    play_parser.add_argument("--games", type=int, default=200)
    play_parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    play_parser.add_argument("--variant", choices=("colored", "gray"), default="colored")
    play_parser.add_argument("--iterations", type=int, default=400, help="strong's, a move")
    play_parser.add_argument("--seed", type=int, default=1)
    play_parser.add_argument("--jobs", type=int, default=1)
    play_parser.add_argument("--max-seconds", type=float, help="keep no game after this long")
    play_parser.add_argument(
        "--fitted",
        help="the players search with these tables (default: the hand-written); several,"
        " comma-separated, are taken by the seats in turn (none: the hand-written)",
    )
    play_parser.add_argument(
        "--label-iterations",
        type=int,
        default=0,
        help="after each round end's deal, a search of this many iterations labels the rows"
        " with the margin it expects ('search'; default 0: no such label)",
    )
    play_parser.add_argument(
        "--label-tables", help="the tables that label search judges by (default: the hand's)"
    )
    play_parser.add_argument("--out", type=Path, required=True, help="the .npz file to write")
    fit_parser = commands.add_parser("fit", help="fit the tables, print validation figures")
    fit_parser.add_argument("data", type=Path, nargs="+", help="play .npz files")
    fit_parser.add_argument("--label", choices=("score", "margin", "search"), default="score")
    fit_parser.add_argument("--ridge", type=float, default=30.0, help="shrinkage to the hand")
    fit_parser.add_argument("--merge", action="store_true", help="buckets 1-2 and 3-4 as one")
    fit_parser.add_argument("--free-score", action="store_true", help="fit the score's weight")
    fit_parser.add_argument(
        "--drop", action="append", default=[], choices=FEATURES[1:], help="leave a feature out"
    )
    fit_parser.add_argument("--validation", type=float, default=0.2, help="games held out")
    fit_parser.add_argument("--seed", type=int, default=1)
    fit_parser.add_argument("--out", type=Path, help="the JSON tables to write")
    speed_parser = commands.add_parser("speed", help="strong's iterations a second, both ways")
    speed_parser.add_argument("tables", type=Path, help="fitted tables (fit --out)")
    speed_parser.add_argument("--positions", type=int, default=40)
    speed_parser.add_argument("--iterations", type=int, default=1000)
    speed_parser.add_argument("--repeats", type=int, default=3)
    speed_parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    speed_parser.add_argument("--seed", type=int, default=1)
    speed_parser.add_argument(
        "--baseline", type=Path, help="tables to compare with (default: the hand-written)"
    )
    args = parser.parse_args(argv)
    arguments = sys.argv[1:] if argv is None else argv
    command = "python -m research.learn.roundend " + " ".join(arguments)

    if args.command == "play":
        arrays, figures = generate(
            games=args.games,
            players=args.players,
            seed=args.seed,
            iterations=args.iterations,
            variant=args.variant,
            jobs=args.jobs,
            max_seconds=args.max_seconds,
            progress=True,
            fitted=args.fitted,
            label_iterations=args.label_iterations,
            label_tables=args.label_tables,
        )
        figures["command"] = command
        args.out.parent.mkdir(parents=True, exist_ok=True)
        contents: dict[str, Any] = {"meta": np.array(json.dumps(figures)), **arrays}
        np.savez_compressed(args.out, **contents)
        print(json.dumps(figures, indent=1))
        return 0

    if args.command == "speed":
        figures = measure_speed(
            args.tables,
            positions=args.positions,
            iterations=args.iterations,
            repeats=args.repeats,
            players=args.players,
            seed=args.seed,
            baseline=args.baseline,
        )
        print(json.dumps(figures))
        return 0

    data, metas = load(args.data)
    started = time.perf_counter()
    buckets, figures = fit(
        data,
        label=args.label,
        penalty=args.ridge,
        validation=args.validation,
        seed=args.seed,
        merge=args.merge,
        free_score=args.free_score,
        drop=args.drop,
    )
    figures["fit_seconds"] = round(time.perf_counter() - started, 3)
    figures["command"] = command
    figures["data"] = [
        {"file": path.name, "command": m.get("command"), "games": m["games"], "rows": m["rows"]}
        for path, m in zip(args.data, metas, strict=True)
    ]
    _print_figures(figures)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"buckets": {str(b): t for b, t in sorted(buckets.items())}, **figures}
        args.out.write_text(json.dumps(payload, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
