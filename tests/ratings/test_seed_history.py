"""`manage.py seed_history`: every generated game's log replays to its stored state and result,
and the ratings it writes are those `ratings_recompute` makes from the history."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

import azul
from games.models import Game, LogEntry
from ratings.models import RatedGame
from ratings.recompute import ratings_recompute


@pytest.mark.django_db(transaction=True)
def test_seed_history_games_replay_and_ratings_agree() -> None:
    call_command("seed_history", players=30, games=40, seed=7)

    assert get_user_model().objects.filter(username__startswith="seed").count() == 30
    games = list(Game.objects.with_seats().filter(status=Game.Status.FINISHED))
    assert len(games) == 40
    for game in games:
        entries = [e.data for e in LogEntry.objects.filter(game=game).order_by("number")]
        assert len(entries) == game.ply
        state = azul.replay(
            entries,
            players=game.num_players,
            variant=game.variant,
            first_player=game.first_player,
        )
        assert state.phase == "over"
        assert state.to_dict() == game.state
        outcome = azul.result(state)
        assert [(s.final_score, s.place) for s in game.seat_list] == [
            (st.score, st.place) for st in outcome.standings
        ]

    assert RatedGame.objects.exists()
    report = ratings_recompute()
    assert report.games == 40
    assert report.total == 0, report.examples
