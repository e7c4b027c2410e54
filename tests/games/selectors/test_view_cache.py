"""Views and boards are cached per game version and viewer: never another player's, never an
older game's."""

from games import selectors
from tests.support.play import first_move, play_forward
from tests.support.urls import games_url


def test_a_watcher_never_gets_the_view_cached_for_a_player(
    start_game, alice, bob, carol, api_client_for
):
    game = play_forward(start_game(alice, bob), moves=1, users={0: alice, 1: bob}, pick=first_move)
    mover = next(
        u
        for u in (alice, bob)
        if api_client_for(u).get(games_url(game.id)).json()["viewer_can_move"]
    )

    player_view = api_client_for(mover).get(games_url(game.id)).json()
    watcher_view = api_client_for(carol).get(games_url(game.id)).json()

    assert player_view["legal_moves"] and player_view["viewer_seat"] is not None
    assert watcher_view["legal_moves"] == [] and watcher_view["viewer_seat"] is None
    assert not any(p["is_viewer"] for p in watcher_view["players"])
    legal = api_client_for(carol).get(games_url(game.id, "legal-moves")).json()
    assert legal["legal_moves"] == []


def test_a_move_makes_a_new_version(start_game, alice, bob, api_client_for):
    game = start_game(alice, bob)
    client = api_client_for(alice)
    before = client.get(games_url(game.id)).json()
    version = selectors.game_version(game_id=game.id, viewer=alice)

    play_forward(game, moves=1, users={0: alice, 1: bob}, pick=first_move)

    after = client.get(games_url(game.id)).json()
    assert after["ply"] > before["ply"]
    assert selectors.game_version(game_id=game.id, viewer=alice).key != version.key


def test_a_seat_taken_is_a_new_version_for_everyone(alice, make_user, api_client_for):
    """Views are kept per viewer; the viewer's seat is not in the key, so every change of a
    seat must move the game's version (here: an invitation accepted)."""
    from games import services

    dora = make_user("dora")
    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username=dora.username)],
    )
    client = api_client_for(dora)
    invited = client.get(games_url(game.id)).json()
    before = selectors.game_version(game_id=game.id, viewer=dora)
    assert invited["viewer_seat"] is None and not before.started

    services.invitation_respond(game_id=game.id, user=dora, accept=True)

    seated = client.get(games_url(game.id)).json()
    assert selectors.game_version(game_id=game.id, viewer=dora).key != before.key
    assert seated["viewer_seat"] == 1 and seated["status"] == "active"
