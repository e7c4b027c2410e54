"""Data that an app higher up adds to a record of an app below it (the chat in a game's export),
without the record's app importing the adding one: as `core.slots.panels` does for pages.

Each record's slot is a Django signal. The record merges what the slot's receivers return
(`additions_collect(game_export_additions, game=game)`), in the order they were connected. An
app connects a receiver from its AppConfig.ready, returning the keys to add (an empty dict for
none).
"""

from __future__ import annotations

from typing import Any, cast

from django.dispatch import Signal

game_export_additions = Signal()
"""A game's export (`games.record.export`): `game`."""


def additions_collect(slot: Signal, **about: Any) -> dict[str, Any]:
    collected: dict[str, Any] = {}
    # The receivers' answers, in order (django-stubs says `str | None`).
    answers = cast(list[tuple[Any, dict[str, Any]]], slot.send(None, **about))
    for _receiver, addition in answers:
        collected.update(addition)
    return collected
