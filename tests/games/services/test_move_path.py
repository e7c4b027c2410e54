"""A move's path through `games/services/`: a move submitted through the API enters few of its
files, each few times (issue #60: at most 6 files, none entered more than 3 times).

An entry is a call of a function of a `games/services/` file from another file (the view, another
service, Django running an on-commit callback): calls within a file are its own business, and so
is a generator's being resumed by what iterates it. The
walk covers the request and what runs once its write commits (`-s` prints the figures)."""

from __future__ import annotations

import inspect
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import games.services
from tests.support import factories
from tests.support.play import player_to_move
from tests.support.urls import games_url

SERVICES = str(Path(games.services.__file__).parent) + "/"
MOST_FILES = 6
MOST_ENTRIES = 3
GENERATOR = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def entries_while(call: Callable[[], Any]) -> Counter[str]:
    """The number of entries into each file of `games/services/` while `call()` runs."""
    entries: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_flags & GENERATOR:
            return  # a generator resumed by whoever iterates it is not an entry
        where = frame.f_code.co_filename
        if not where.startswith(SERVICES):
            return
        caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
        if caller != where:
            entries[where[len(SERVICES) :]] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entries


def move_entries(client: Any, game_id: str, capture: Any) -> Counter[str]:
    """A move of the player to move (their first legal one), submitted through the API with
    `client`, and the entries it makes, its on-commit follow-ups run."""
    view = client.get(games_url(game_id)).json()
    legal = client.get(games_url(game_id, "legal-moves")).json()["legal_moves"]
    answers = []

    def move() -> None:
        with capture(execute=True):
            body = {"move": legal[0], "expected_ply": view["ply"]}
            answers.append(client.post(games_url(game_id, "moves"), body, format="json"))

    entries = entries_while(move)
    assert answers[0].status_code == 201, answers[0].content
    return entries


def figures(entries: Counter[str]) -> str:
    return f"{len(entries)} files, most entries {max(entries.values())}: {dict(entries)}"


def test_each_move_of_a_round_enters_few_service_files_few_times(
    active_game, clients, django_capture_on_commit_callbacks
):
    """Every move of the first round between two people, the one that deals the next included."""
    game_id, walks = active_game["id"], []
    while clients["alice"].get(games_url(game_id)).json()["state"]["round"] == 1:
        view = clients["alice"].get(games_url(game_id)).json()
        walks.append(
            move_entries(clients[player_to_move(view)], game_id, django_capture_on_commit_callbacks)
        )
    worst = max(walks, key=lambda e: (len(e), max(e.values())))
    print(f"\na person's move (worst of {len(walks)}): {figures(worst)}")
    for entries in walks:
        assert len(entries) <= MOST_FILES, entries
        assert max(entries.values()) <= MOST_ENTRIES, entries


def test_a_move_against_the_computer_and_its_reply(alice, django_capture_on_commit_callbacks):
    """For the record (`-s`): a person's move whose follow-up, run in-process, is the computer's
    reply, a second move through the services."""
    with django_capture_on_commit_callbacks(execute=True):
        game = factories.against_computer(alice)  # the computer moves first, if it is to
    game.refresh_from_db()
    client = factories.api_client_for(alice)
    entries = move_entries(client, str(game.id), django_capture_on_commit_callbacks)
    assert client.get(games_url(game.id)).json()["ply"] >= game.ply + 2
    print(f"\na move and the computer's reply: {figures(entries)}")
