"""The board's move list: each round's scoring after its last move, the end-of-game bonuses, the
last round's summary panel, the moves since the viewer last played, and whole move numbers."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

import azul
from games import selectors, services
from games.models import Game
from games.presenters.scoring import round_scored
from games.record.summary import replay_summary
from tests.support.factories import against_computer
from tests.support.html import log_items, text
from tests.support.play import (
    long_game_quickly,
    only_to_move,
    play_forward,
    round_over,
    to_move_user,
)
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db


def test_round_scoring_text_names_each_line_the_floor_and_the_new_score():
    """The wording of one round's scoring, from a round as `games.record.summary` counts it."""
    scoring = {
        "round": 2,
        "final": False,
        "players": [
            {
                "position": 0,
                "score_before": 4,
                "lines": [{"line": 2, "points": 3}, {"line": 4, "points": 2}],
                "line_points": 5,
                "floor": -2,
                "bonus": None,
                "score": 7,
            },
            {
                "position": 1,
                "score_before": 1,
                "lines": [],
                "line_points": 0,
                "floor": -1,
                "bonus": None,
                "score": 0,
            },
        ],
    }
    shown = round_scored(scoring, {0: "Alice", 1: "Bob"})
    assert [f"{p['name']} {p['detail']}" for p in shown["players"]] == [
        "Alice +5 (row 2 +3, row 4 +2), floor -2 → 7",
        "Bob +0, floor -1 → 0",
    ]
    assert shown["bonuses"] is None


def test_the_last_round_shows_the_bonuses_by_kind():
    scoring = {
        "round": 6,
        "final": True,
        "players": [
            {
                "position": 0,
                "score_before": 40,
                "lines": [{"line": 1, "points": 5}],
                "line_points": 5,
                "floor": 0,
                "bonus": 19,
                "score": 64,
            }
        ],
    }
    standing = {"position": 0, "score": 64, "row_bonus": 2, "column_bonus": 7, "color_bonus": 10}
    shown = round_scored(scoring, {0: "Alice"}, [standing])
    assert shown["players"][0]["detail"] == "+5 (row 1 +5) → 45"
    assert shown["bonuses"] == [
        {"name": "Alice", "detail": "+19 (rows +2, columns +7, colors +10) → 64"}
    ]


def test_each_round_is_scored_after_its_last_move_as_the_replay_counts_it(
    start_game, alice, bob, client_for
):
    game = play_forward(start_game(alice, bob), moves=300)
    assert game.status == "finished"
    summary = replay_summary(game=game)
    content = client_for(alice).get(board_url(game)).content.decode()
    items = log_items(content)

    scored = [(i, t) for i, (cls, t) in enumerate(items) if cls.split()[0] == "scored"]
    assert len(scored) == len(summary["rounds"]) >= 2
    names = {0: "alice", 1: "bob"}
    for (index, shown), scoring in zip(scored, summary["rounds"], strict=True):
        number = scoring["round"]
        assert shown.startswith(f"Round {number} scored:")
        # Right after the round's last move, right before the next round's deal.
        assert items[index - 1][0].split()[0] == "move"
        if not scoring["final"]:
            assert items[index + 1][1].endswith(f"Round {number + 1} dealt")
        for player in scoring["players"]:
            name = names[player["position"]]
            tiled = player["score_before"] + player["line_points"] + player["floor"]
            lines = ", ".join(f"row {line['line']} +{line['points']}" for line in player["lines"])
            expected = f"{name} +{player['line_points']}" + (f" ({lines})" if lines else "")
            if player["floor"]:
                expected += f", floor {player['floor']}"
            assert f"{expected} → {tiled}" in shown, (number, shown)

    # The end of the game: every player's bonuses by kind, and the final score.
    final = scored[-1][1]
    standings = {s.position: s for s in game.seat_list}
    for position, name in names.items():
        seat = standings[position]
        assert re.search(rf"Bonuses:.*{name} \+\d+.* → {seat.final_score}\b", final), final


def test_the_board_sums_up_the_last_round(alice, client_for):
    game = play_forward(against_computer(alice), until=round_over(1), seed=3)
    assert game.engine_state().round == 2

    content = client_for(alice).get(board_url(game)).content.decode()

    panel = content[content.index('<section class="round-summary"') :]
    panel = text(panel[: panel.index("</section>")])
    assert panel.startswith("Round 1 scored")
    scoring = replay_summary(game=game)["rounds"][0]
    for player in scoring["players"]:
        assert f"→ {player['score']}" in panel
    assert "Round 1 scored:" in text(content[content.index('<ol class="move-log') :])

    # A round later, the panel is about round 2.
    game = play_forward(game, until=round_over(2), seed=3)
    content = client_for(alice).get(board_url(game)).content.decode()
    if game.status == "active":
        assert '<h2 id="round-summary-title">Round 2 scored</h2>' in content


def test_moves_since_the_viewer_last_played_are_marked(alice, carol, client_for):
    game = play_forward(
        against_computer(alice, computers=2, level="random"), until=only_to_move(0), seed=3
    )
    # Alice moves, then the two computers: she comes back to moves she has not seen.
    move = legal_moves_of(game)[0]
    services.move_submit(game_id=game.id, user=alice, move=move, expected_ply=game.ply)
    assert "since-marker" not in client_for(alice).get(board_url(game)).content.decode()
    game = play_forward(game, until=only_to_move(0), seed=3)

    items = log_items(client_for(alice).get(board_url(game)).content.decode())
    marker = next(i for i, (cls, _) in enumerate(items) if cls == "since-marker")
    assert items[marker][1] == "Since you last played"
    assert items[marker - 1][1].endswith(f"alice: {move}")  # her own last move, just before
    after = items[marker + 1 :]
    assert len(after) >= 2 and all("since" in cls.split() for cls, _ in after)
    assert not any("alice:" in t for _, t in after)
    assert not any("since" in cls.split() for cls, _ in items[:marker])

    # A watcher has no last move of their own: nothing is marked for them.
    assert "since" not in " ".join(c for c, _ in log_items(watch(client_for(carol), game)))


def watch(client, game) -> str:
    return client.get(board_url(game)).content.decode()


def legal_moves_of(game) -> list[str]:
    state = game.engine_state()
    return [str(m) for m in azul.legal_moves(state, state.to_move[0])]


def test_three_digit_move_numbers_are_written_out(alice, client_for):
    game = long_game_quickly(alice)
    assert game.ply > 100

    content = client_for(alice).get(board_url(game)).content.decode()

    numbers = [int(n) for n in re.findall(r'<span class="ply">(\d+)</span>', content)]
    assert numbers == list(range(1, game.ply + 1))


def test_a_move_the_server_made_when_time_ran_out_is_not_the_players_own(
    start_game, alice, bob, client_for
):
    """A player moved, the other answered, then the first one's time ran out and the server
    moved for them: they have not seen the answer, which is still marked, as is the server's
    move for them."""
    game = start_game(alice, bob)
    mover = to_move_user(game)
    own = legal_moves_of(game)[0]
    services.move_submit(game_id=game.id, user=mover, move=own, expected_ply=game.ply)
    game = play_forward(game, moves=1)  # the other one answers
    Game.objects.filter(pk=game.id).update(turn_deadline=timezone.now() - timedelta(minutes=1))
    assert services.timeouts_play(game_id=game.id, expected_ply=game.ply) is not None
    game = selectors.game_get(game_id=game.id)

    items = log_items(client_for(mover).get(board_url(game)).content.decode())
    marker = next(i for i, (cls, _) in enumerate(items) if cls == "since-marker")
    assert items[marker - 1][1].endswith(f"{mover.username}: {own}")
    timed_out = [t for c, t in items[marker + 1 :] if "timeout" in c.split()]
    assert len(timed_out) == 1 and "time ran out" in timed_out[0]
