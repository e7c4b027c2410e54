"""The replay's score chart: every player's score after each round, as SVG coordinates that
`templates/games/_replay_chart.html` draws as polylines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CHART_WIDTH = 480
CHART_HEIGHT = 200
CHART_PAD = {"left": 34, "right": 12, "top": 12, "bottom": 28}


def _nice_top(value: int) -> int:
    """The chart's top score: the highest score rounded up to a multiple of 10 (at least 10)."""
    return max(10, -(-value // 10) * 10)


def score_chart(rounds: list[dict[str, Any]], names: Mapping[int, str]) -> dict[str, Any] | None:
    """The chart of the rounds of a replay summary (`replay_summary()["rounds"]`), one series
    per seat of `names`; None before the first round is tiled."""
    if not rounds:
        return None
    width, height, pad = CHART_WIDTH, CHART_HEIGHT, CHART_PAD
    top = _nice_top(max(p["score"] for r in rounds for p in r["players"]))
    plot_w = width - pad["left"] - pad["right"]
    plot_h = height - pad["top"] - pad["bottom"]
    count = len(rounds)

    def x(round_index: int) -> float:
        return round(pad["left"] + plot_w * round_index / count, 1)

    def y(score: int) -> float:
        return round(pad["top"] + plot_h * (1 - score / top), 1)

    series = []
    for position in sorted(names):
        scores = [0] + [r["players"][position]["score"] for r in rounds]
        dots = [
            {"x": x(i), "y": y(s), "round": i, "score": s} for i, s in enumerate(scores) if i > 0
        ]
        series.append(
            {
                "position": position,
                "name": names[position],
                "points": " ".join(f"{x(i)},{y(s)}" for i, s in enumerate(scores)),
                "dots": dots,
                "final": scores[-1],
            }
        )
    step = top // 5
    return {
        "width": width,
        "height": height,
        "series": series,
        "y_ticks": [{"value": v, "y": y(v)} for v in range(0, top + 1, step)],
        "x_ticks": [{"round": i, "x": x(i)} for i in range(count + 1)],
        "left": pad["left"],
        "right": width - pad["right"],
        "bottom": height - pad["bottom"],
        "top": pad["top"],
        "label_y": height - 6,
    }
