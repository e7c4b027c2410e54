"""A game's version (`updated_at`, what its cached views and boards are keyed by) changes when
something it shows of a player changes, and only then (`games.services.players`)."""

import pytest

from accounts.services import profile_update
from games.models import Game

pytestmark = pytest.mark.django_db


def version(game: Game) -> object:
    return Game.objects.values_list("updated_at", flat=True).get(pk=game.pk)


@pytest.mark.parametrize(
    "change",
    [
        lambda user: profile_update(user=user, display_name="Alice the Bold"),
        lambda user: setattr(user, "username", "alice2") or user.save(),
        lambda user: setattr(user.profile, "display_name", "Al") or user.profile.save(),
    ],
    ids=["display name", "username", "display name, whole profile saved"],
)
def test_a_change_that_games_show_is_a_new_version(alice, bob, start_game, change):
    game = start_game(alice, bob)
    before = version(game)

    change(alice)

    assert version(game) > before


@pytest.mark.parametrize(
    "change",
    [
        lambda user: profile_update(user=user, email_your_turn="never"),
        lambda user: setattr(user.profile, "email_digest", False) or user.profile.save(),
        lambda user: setattr(user, "first_name", "Alice") or user.save(),
        lambda user: user.save(update_fields=["last_login"]),
    ],
    ids=["email choice", "digest, whole profile saved", "first name", "login"],
)
def test_a_change_that_no_game_shows_is_not(alice, bob, start_game, change):
    game = start_game(alice, bob)
    before = version(game)

    change(alice)

    assert version(game) == before
