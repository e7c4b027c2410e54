"""The new-game form: the computer levels are offered with how well each plays, a computer seat
gets the level chosen, and the form submitted unchanged creates a game that starts at once."""

import pytest
from django.db import models
from django.urls import reverse

from games import forms as game_forms
from games.models import Game, Seat
from games.presenters import levels as level_words
from tests.support.html import form_defaults

pytestmark = pytest.mark.django_db

NEW = reverse("games:new")


def seats_of(game: Game) -> list[tuple[str, int | None, str]]:
    return list(game.seats.order_by("position").values_list("kind", "user", "bot_level"))


def test_every_computer_level_is_offered_with_what_it_plays_like(alice, client_for):
    page = client_for(alice).get(NEW).content.decode()

    for level in Seat.BotLevel:
        description = level_words.bot_level_description(level.value)
        assert f'<option value="computer:{level.value}"' in page
        assert f">Computer ({level.label.lower()})</option>" in page
        assert f'<li data-choice="computer:{level.value}"><strong>{level.label}</strong>:' in page
        assert f'<span class="description">{description}</span>' in page
    # Weakest first, as `Seat.BotLevel` lists them, and then the people.
    kinds = game_forms.GameCreateForm(creator=alice).fields["seat2_kind"].choices
    assert [value for value, _ in kinds[0][1]] == [f"computer:{v}" for v in Seat.BotLevel.values]
    assert [value for value, _ in kinds[1][1]] == ["invite", "open"]
    assert "How well the computer plays" in page


def test_the_form_submitted_unchanged_starts_a_game_against_the_medium_computer(alice, client_for):
    client = client_for(alice)
    defaults = form_defaults(client.get(NEW).content.decode(), "new-game-form")
    assert defaults["seat2_kind"] == "computer:medium"
    assert defaults["seat2_username"] == ""

    response = client.post(NEW, defaults)

    game = Game.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("games:detail", args=[game.id])
    assert (game.num_players, game.variant, game.days_per_move) == (2, "colored", 3)
    assert game.status == Game.Status.ACTIVE  # nobody to wait for
    assert seats_of(game) == [("human", alice.pk, "random"), ("computer", None, "medium")]


def test_more_players_unchanged_are_all_computers(alice, client_for):
    client = client_for(alice)
    defaults = form_defaults(client.get(NEW).content.decode(), "new-game-form")

    client.post(NEW, {**defaults, "num_players": "4"})

    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE
    assert [kind for kind, _, _ in seats_of(game)] == ["human"] + ["computer"] * 3


@pytest.mark.parametrize("level", Seat.BotLevel.values)
def test_a_computer_seat_plays_at_the_level_chosen(alice, client_for, level):
    client = client_for(alice)
    defaults = form_defaults(client.get(NEW).content.decode(), "new-game-form")

    response = client.post(NEW, {**defaults, "seat2_kind": f"computer:{level}"})

    assert response.status_code == 302
    assert seats_of(Game.objects.get())[1] == ("computer", None, level)


def test_a_bare_computer_seat_is_the_default_level(alice, client_for):
    """What the form sent before it offered levels (and what a script may still send)."""
    data = {"num_players": 3, "variant": "gray", "days_per_move": 1}
    data |= {"seat2_kind": "computer", "seat3_kind": "computer:strong"}

    client_for(alice).post(NEW, data)

    computers = [level for kind, _, level in seats_of(Game.objects.get()) if kind == "computer"]
    assert computers == ["medium", "strong"]


def test_an_unknown_level_is_refused(alice, client_for):
    response = client_for(alice).post(
        NEW,
        {"num_players": 2, "variant": "colored", "days_per_move": 3, "seat2_kind": "computer:god"},
    )

    assert response.status_code == 200
    assert "Select a valid choice" in " ".join(response.context["form"].errors["seat2_kind"])
    assert not Game.objects.exists()


def test_inviting_a_player_still_needs_their_name(alice, bob, client_for):
    client = client_for(alice)
    defaults = form_defaults(client.get(NEW).content.decode(), "new-game-form")

    empty = client.post(NEW, {**defaults, "seat2_kind": "invite"})
    assert "Name the player to invite" in empty.content.decode()
    named = client.post(NEW, {**defaults, "seat2_kind": "invite", "seat2_username": "BOB"})

    assert named.status_code == 302
    assert seats_of(Game.objects.get())[1][:2] == ("human", bob.pk)


def test_a_new_level_is_offered_without_changing_the_form(alice, monkeypatch):
    """The levels are read from `Seat.BotLevel`; a level without a line of its own here is
    described by the engine's description of it, or plainly."""

    class BotLevel(models.TextChoices):
        RANDOM = "random", "Random"
        STRONG = "strong", "Strong"
        EXPERT = "expert", "Expert"

    monkeypatch.setattr(game_forms.Seat, "BotLevel", BotLevel)
    choices = dict(game_forms.GameCreateForm(creator=alice).fields["seat2_kind"].choices[0][1])

    assert list(choices) == ["computer:random", "computer:strong", "computer:expert"]
    assert choices["computer:expert"] == "Computer (expert)"
    assert level_words.bot_level_description("expert") == "a computer player"
    assert (
        level_words.bot_level_description("strong") == level_words.BOT_LEVEL_DESCRIPTIONS["strong"]
    )


def test_a_level_the_engine_describes_falls_back_to_its_first_sentence(monkeypatch):
    monkeypatch.delitem(level_words.BOT_LEVEL_DESCRIPTIONS, "greedy")

    assert level_words.bot_level_description("greedy").startswith("takes the move that looks best")


def test_the_page_loads_its_script_and_the_player_search(alice, client_for):
    page = client_for(alice).get(NEW).content.decode()

    assert "games/new_game.js" in page and "games/player_search.js" in page
    assert 'list="player-suggestions"' in page
    api = reverse("accounts:api_players")
    following = reverse("accounts:api_following")
    assert (
        f'<datalist id="player-suggestions" data-api="{api}" data-following="{following}">' in page
    )
