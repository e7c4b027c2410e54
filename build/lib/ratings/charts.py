"""A player's rating over time as a small server-rendered SVG line (no chart library, no chart
service): one point per rated game, in the order the games ended."""

from __future__ import annotations

from datetime import datetime
from typing import Any

WIDTH = 600
HEIGHT = 200
PAD = 30


def rating_chart(history: list[tuple[datetime, int]]) -> dict[str, Any] | None:
    """What `ratings/_rating_chart.html` draws for `ratings.selectors.rating_history`: the
    points (x, y in the SVG's coordinates, with the game's date and rating), the polyline and
    the axis labels. None without a rated game."""
    if not history:
        return None
    ratings = [rating for _, rating in history]
    low, high = min(ratings), max(ratings)
    span = max(high - low, 1)
    step = (WIDTH - 2 * PAD) / max(len(history) - 1, 1)
    points = []
    for i, (ended, rating) in enumerate(history):
        x = PAD + i * step if len(history) > 1 else WIDTH / 2
        y = HEIGHT - PAD - (rating - low) / span * (HEIGHT - 2 * PAD)
        points.append({"x": round(x, 1), "y": round(y, 1), "ended": ended, "rating": rating})
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "points": points,
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
        "low": low,
        "high": high,
        "low_y": HEIGHT - PAD,
        "high_y": PAD,
    }
