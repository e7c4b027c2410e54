"""Data that an app higher up adds to a record of an app below it (the chat in a game's export),
without the record's app importing the adding one: as `core.panels` does for pages.

The record names a slot and merges what its builders return
(`additions_collect("game_export", game=game)`). An app fills a slot from its AppConfig.ready
(`addition_register`) with a builder returning the keys to add (an empty dict for none).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

AdditionBuilder = Callable[..., dict[str, Any]]

_builders: dict[str, list[AdditionBuilder]] = {}


def addition_register(slot: str, builder: AdditionBuilder) -> None:
    builders = _builders.setdefault(slot, [])
    if builder not in builders:
        builders.append(builder)


def additions_collect(slot: str, **about: Any) -> dict[str, Any]:
    collected: dict[str, Any] = {}
    for builder in _builders.get(slot, ()):
        collected.update(builder(**about))
    return collected
