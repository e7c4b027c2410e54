"""`core.pages.links.link_maker`: the links `reverse` makes, for many values at once."""

from __future__ import annotations

import uuid

import pytest
from django.urls import NoReverseMatch, reverse

from core.pages.links import link_maker

NAMES = ["alice", "Bob.Smith", "a+b@c-d_e", "김철수", "Zoë", "50%", "x y", "sample-player2"]


@pytest.mark.parametrize("username", NAMES)
def test_a_player_link_is_what_reverse_makes(username):
    assert link_maker("accounts:player", "sample-player")(username) == reverse(
        "accounts:player", args=[username]
    )


def test_a_replay_link_is_what_reverse_makes():
    link = link_maker("games:replay", uuid.UUID(int=0))
    for _ in range(5):
        game_id = uuid.uuid4()
        assert link(game_id) == reverse("games:replay", args=[game_id])


def test_a_value_the_route_refuses_is_refused_as_reverse_refuses_it():
    with pytest.raises(NoReverseMatch):
        link_maker("accounts:player", "sample-player")("a/b")
