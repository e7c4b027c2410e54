"""Moves the server made for a person are not credited to them: after a resignation (the
computer plays the seat), after a third timeout (the computer takes the seat), and once nobody
is left to play (the game played out at once), the board's move list, the replay and the export
say who made each move; "since you last played" is for a player who has played; and the lists
of finished games say who resigned beside their score."""

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import timezone

from games import selectors, services
from games.models import Seat
from games.selectors import ServerMove, server_moves
from tests.support.html import log_items
from tests.support.play import play_forward, positions
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db

KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}


def seat(position, kind="human", resigned_at=None):
    return SimpleNamespace(position=position, kind=kind, resigned_at=resigned_at)


def move(player, at, **extra):
    return {
        "data": {"kind": "move", "player": player, "move": "F1 blue 1", **extra},
        "created_at": at,
    }


def test_who_made_each_move_follows_from_the_log_and_the_seats():
    t0 = timezone.now()
    at = [t0 + timedelta(minutes=m) for m in range(20)]
    deal = {"data": {"kind": "deal", "tiles": []}, "created_at": at[0]}
    # Three players and a computer: seat 1 resigns at minute 5; seat 2 times out three times.
    seats = [seat(0), seat(1, resigned_at=at[5]), seat(2), seat(3, kind="computer")]
    entries = [
        deal,
        move(0, at[1]),  # 1: alice's own
        move(1, at[2]),  # 2: bob's own, before he resigned
        move(2, at[3], timeout=True),  # 3: carol's first timeout
        move(3, at[4]),  # 4: the computer's own seat
        move(1, at[6]),  # 5: after bob resigned
        move(2, at[7], timeout=True),  # 6
        move(2, at[8], timeout=True),  # 7: the third: the computer takes carol's seat
        move(2, at[9]),  # 8: carol's seat, taken over
        move(0, at[10]),  # 9: alice plays on against the computers
    ]
    assert server_moves(seats=seats, entries=entries) == {
        3: ServerMove.TIMEOUT,
        5: ServerMove.RESIGNED,
        6: ServerMove.TIMEOUT,
        7: ServerMove.TIMEOUT,
        8: ServerMove.TAKEOVER,
    }
    assert selectors.own_moves(seats=seats, entries=entries) == [1, 2, 9]
    # Two players, one resigns: the game is played out at once, the other's moves too.
    two = [seat(0), seat(1, resigned_at=at[5])]
    played_out = [deal, move(0, at[1]), move(1, at[2]), move(0, at[6]), move(1, at[6])]
    assert server_moves(seats=two, entries=played_out) == {
        3: ServerMove.PLAYED_OUT,
        4: ServerMove.RESIGNED,
    }
    # A study's log says it outright, as its export did.
    study = [deal, move(0, at[1], server="resigned"), move(1, at[1])]
    assert server_moves(seats=[seat(0), seat(1)], entries=study) == {1: ServerMove.RESIGNED}


def replay_rows(content: str) -> dict[int, tuple[str, str]]:
    """ply -> (class, data-server) of each row of the replay's move list."""
    return {
        int(m.group(1)): (m.group(2), (m.group(3) or "").strip())
        for m in re.finditer(
            r'<li value="(\d+)" class="([^"]*)"(?: data-server="([^"]*)")?>', content
        )
    }


def test_moves_the_computer_made_for_a_resigned_player_are_marked(
    start_game, alice, bob, carol, client_for, api_client_for
):
    game = start_game(alice, bob, carol)
    services.game_resign(game_id=game.id, user=bob)  # before he made a move
    seat_of = positions(game)

    def log_of(g):
        return list(g.log_entries.order_by("number").values_list("kind", "player"))

    def bob_moved_twice_and_someone_since(g):
        log = log_of(g)
        moved = sum(1 for entry in log if entry == ("move", seat_of[bob.pk]))
        return moved >= 2 and log[-1][0] == "move" and log[-1][1] != seat_of[bob.pk]

    # The computer plays bob's seat; the others move after its last move for him.
    game = play_forward(game, until=bob_moved_twice_and_someone_since, seed=3)
    log = log_of(game)
    bobs = [
        n + 1
        for n, (kind, player) in enumerate(log)
        if kind == "move" and player == seat_of[bob.pk]
    ]
    others = [
        n + 1
        for n, (kind, player) in enumerate(log)
        if kind == "move" and player != seat_of[bob.pk]
    ]
    assert bobs and others and bobs[-1] < game.ply  # moves followed the computer's last for bob

    # The board: bob's rows say the computer moved; alice's and carol's do not.
    items = log_items(client_for(alice).get(board_url(game)).content.decode())
    moves = {int(re.match(r"\d+", t).group()): (c, t) for c, t in items if c.startswith("move")}
    for ply in bobs:
        cls, text = moves[ply]
        assert "server-move" in cls.split() and text.endswith("(resigned: the computer moved)")
    assert not any("server-move" in moves[ply][0] for ply in others)
    # bob never played: nothing is "since he last played" (it used to start after the
    # computer's last move for him).
    bob_board = client_for(bob).get(board_url(game)).content.decode()
    assert "since-marker" not in bob_board and "Since you last played" not in bob_board

    # The replay (what replay.js swaps in carries the same rows).
    replay = client_for(carol).get(reverse("games:replay", args=[game.id]) + f"?ply={game.ply}")
    rows = replay_rows(replay.content.decode())
    assert all(rows[p] == (rows[p][0], "resigned") and "server-move" in rows[p][0] for p in bobs)
    assert not any(rows[p][1] for p in others)
    assert "(resigned: the computer moved)" in replay.content.decode()

    # The export: a field per move the server made, saying why.
    export = api_client_for(alice).get(reverse("games_api:export", args=[game.id])).json()
    entries = export["entries"]
    assert {n for n, e in enumerate(entries, 1) if e.get("server") == "resigned"} == set(bobs)
    assert not any("server" in entries[p - 1] for p in others)


def test_a_resigned_two_player_game_marks_the_played_out_moves_and_the_lists_say_who_resigned(
    start_game, alice, bob, client_for, api_client_for
):
    game = play_forward(start_game(alice, bob), moves=6)
    before = game.ply
    game = services.game_resign(game_id=game.id, user=bob)
    assert game.status == "finished"
    seat_of = positions(game)

    export = api_client_for(alice).get(reverse("games_api:export", args=[game.id])).json()
    marks = {n: e.get("server") for n, e in enumerate(export["entries"]) if e["kind"] == "move"}
    assert all(marks[n] is None for n in marks if n < before)
    after = {n: (export["entries"][n]["player"], why) for n, why in marks.items() if n >= before}
    assert after and all(
        why == ("resigned" if player == seat_of[bob.pk] else "played_out")
        for player, why in after.values()
    )
    board = client_for(alice).get(board_url(game)).content.decode()
    assert "(the result was settled: the computer moved)" in board
    # Imported back as a study, the game keeps who made each move; a file saying anything else
    # is refused. (A study may not name the site's players: bob is "Grace" in it.)
    export["players"][seat_of[bob.pk]]["name"] = "Grace"
    imported = api_client_for(alice).post(reverse("games_api:import"), export, format="json")
    assert imported.status_code == 201, imported.json()
    again = api_client_for(alice).get(reverse("games_api:export", args=[imported.json()["id"]]))
    assert [e.get("server") for e in again.json()["entries"]] == [
        e.get("server") for e in export["entries"]
    ]
    export["entries"][min(after)]["server"] = "bored"
    refused = api_client_for(alice).post(reverse("games_api:import"), export, format="json")
    assert refused.status_code == 400 and refused.json()["entry"] == min(after)
    assert "'server' says why the server made the move" in refused.json()["detail"]

    # The history and alice's "Recently finished": bob's score says he resigned, alice's not.
    history = client_for(alice).get(reverse("games:history")).content.decode()
    row = history.split(f"/games/{game.id}/replay/")[0].rsplit('<tr class="history-row">', 1)[1]
    bob_score = Seat.objects.get(game=game, user=bob).final_score
    assert re.search(
        rf'bob</a> <span class="score">{bob_score}</span> <span class="meta seat-left">'
        r"\(resigned\)</span>",
        row,
    )
    assert row.count("(resigned)") == 1
    mine = client_for(alice).get(reverse("games:my_games")).content.decode()
    finished = mine[mine.index("Recently finished") :]
    assert re.search(
        rf"bob {bob_score} <span class=\"meta seat-left\">\(resigned\)</span>", finished
    )

    # In Korean too.
    korean = client_for(alice).get(reverse("games:history"), **KO).content.decode()
    assert "(기권)" in korean
    assert (
        "(승부가 결정됨: 컴퓨터가 대신 둠)"
        in client_for(alice).get(board_url(game), **KO).content.decode()
    )
