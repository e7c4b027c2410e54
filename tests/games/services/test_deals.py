"""Deals anyone can check (README, "Checking a game's deals"): a game commits to its seed when it
is created, each player contributes as they take their seat, every deal follows from the two,
and once the game is over its export checks with the engine alone (`python -m azul.verify`)."""

import copy
import hashlib
import json

import pytest

import azul
from azul import COLORS, fairness
from azul.verify import main as verify_main
from games import selectors, services
from games.models import Game, LogEntry, Seat
from tests.support.factories import api_client_for, client_for, create_game_by_api
from tests.support.html import form_defaults
from tests.support.play import finish, play_forward, round_over
from tests.support.urls import api_url, games_url

pytestmark = pytest.mark.django_db

ALICE_CONTRIBUTION = "a1" * 32
BOB_CONTRIBUTION = "Bob's-own-dice:42!"


def export(game) -> dict:
    response = api_client_for(game.created_by).get(games_url(game.id, "export"))
    assert response.status_code == 200, response.json()
    return response.json()


def seats(game) -> list[Seat]:
    return list(Seat.objects.filter(game_id=game.id).order_by("position"))


@pytest.fixture
def lobby_game(alice, bob):
    """Alice's game with an open seat and a computer, which Bob joins with his contribution
    through the API: it starts."""
    view = create_game_by_api(
        alice,
        [{"kind": "open"}, {"kind": "computer", "level": "random"}],
        contribution=ALICE_CONTRIBUTION,
    )
    response = api_client_for(bob).post(
        games_url(view["id"], "join"), {"contribution": BOB_CONTRIBUTION}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "active"
    return Game.objects.get(pk=view["id"])


def test_a_new_game_commits_to_a_secret_seed(alice, bob):
    view = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    game = Game.objects.get(pk=view["id"])
    seed = bytes.fromhex(game.deal_seed)
    assert len(seed) == 32
    assert game.deal_commitment == hashlib.sha256(seed).hexdigest()
    assert view["deals"] == {
        "verifiable": True,
        "scheme": "azul-deals/1",
        "commitment": game.deal_commitment,
        "seed": None,
        "contributions": None,
    }
    other = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    assert other["deals"]["commitment"] != game.deal_commitment


def test_each_player_contributes_as_they_take_their_seat(lobby_game):
    assert [s.deal_contribution for s in seats(lobby_game)] == [
        ALICE_CONTRIBUTION,
        BOB_CONTRIBUTION,
        "",  # the computer contributes nothing
    ]


def test_an_invited_player_contributes_when_accepting(alice, bob):
    view = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    assert seats(Game(pk=view["id"]))[1].deal_contribution == ""  # not until they accept
    response = api_client_for(bob).post(
        api_url("invitations", view["id"], "accept"), {"contribution": "xyz"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert seats(Game(pk=view["id"]))[1].deal_contribution == "xyz"


def test_a_player_who_sends_none_gets_one_made_up(alice, bob):
    """A form sent without JavaScript (its hidden field empty), or an API call without one."""
    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open")],
    )
    response = client_for(bob).post(f"/games/{game.id}/join/", {"contribution": ""})
    assert response.status_code == 302
    made_up = [s.deal_contribution for s in seats(game)]
    assert all(len(c) == 64 and fairness.contribution_problem(c) is None for c in made_up)
    assert made_up[0] != made_up[1]


def test_the_first_player_and_first_deal_follow_from_the_seed_and_contributions(lobby_game):
    key = fairness.deal_key(
        bytes.fromhex(lobby_game.deal_seed), [ALICE_CONTRIBUTION, BOB_CONTRIBUTION, None]
    )
    assert lobby_game.first_player == fairness.first_player(key, 3)
    first_deal = LogEntry.objects.get(game=lobby_game, number=0).data
    assert first_deal["tiles"] == fairness.deal_tiles(azul.new_game(3), key)


# -- the end of the game: the seed shown, and the export checks ---------------------------------


@pytest.fixture
def finished(lobby_game):
    game = finish(lobby_game)
    return game, export(game)


def test_a_finished_games_export_checks(finished, tmp_path, capsys):
    game, data = finished
    assert data["deals"] == {
        "scheme": "azul-deals/1",
        "commitment": game.deal_commitment,
        "seed": game.deal_seed,
        "contributions": [ALICE_CONTRIBUTION, BOB_CONTRIBUTION, None],
    }
    verdict = fairness.verify_export(data)
    assert verdict.ok, verdict.problem
    assert verdict.deals == LogEntry.objects.filter(game=game, kind="deal").count() > 1
    # The command, as the README tells anyone to run it on the downloaded file.
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    assert verify_main([str(path)]) == 0
    assert "verified" in capsys.readouterr().out


def test_the_seed_is_shown_once_the_game_is_over(finished, alice):
    game, _data = finished
    view = api_client_for(alice).get(games_url(game.id)).json()
    assert view["deals"]["seed"] == game.deal_seed
    page = client_for(alice).get(f"/games/{game.id}/").content.decode()
    assert game.deal_seed in page
    assert "python -m azul.verify" in page


def test_a_tampered_deal_is_named(finished):
    _game, data = finished
    tampered = copy.deepcopy(data)
    deals = [e for e in tampered["entries"] if e["kind"] == "deal"]
    factory = deals[1]["tiles"][3]
    factory[0] = next(c for c in COLORS if c != factory[0])
    verdict = fairness.verify_export(tampered)
    assert not verdict.ok
    assert verdict.problem.startswith("round 2's deal differs: factory 4 has ")


def test_a_changed_seed_or_contribution_fails(finished):
    _game, data = finished
    other_seed = copy.deepcopy(data)
    other_seed["deals"]["seed"] = "00" * 32
    assert "not the commitment" in fairness.verify_export(other_seed).problem
    other_contribution = copy.deepcopy(data)
    other_contribution["deals"]["contributions"][1] = BOB_CONTRIBUTION + "?"
    assert "differs" in fairness.verify_export(other_contribution).problem


def test_a_cancelled_game_shows_its_seed(alice, bob):
    view = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    services.game_cancel(game_id=view["id"], user=alice)
    game = Game.objects.get(pk=view["id"])
    shown = api_client_for(alice).get(games_url(game.id)).json()["deals"]
    assert shown["seed"] == game.deal_seed
    assert shown["contributions"][1] is None  # Bob never took his seat


# -- bad contributions ---------------------------------------------------------------------------

BAD = ["x" * 65, "with space", "caf\u00e9", ["a list"]]


@pytest.mark.parametrize("bad", BAD)
def test_a_bad_contribution_to_a_new_game_is_refused(alice, bad):
    before = Game.objects.count()
    response = api_client_for(alice).post(
        games_url(),
        {"players": 2, "seats": [{"kind": "open"}], "contribution": bad},
        format="json",
    )
    assert response.status_code == 400
    assert "contribution" in response.json()["detail"]
    assert Game.objects.count() == before


@pytest.mark.parametrize("bad", BAD[:3])
def test_a_bad_contribution_to_join_or_accept_is_refused(alice, bob, carol, bad):
    lobby = create_game_by_api(alice, [{"kind": "open"}])
    invite = create_game_by_api(alice, [{"kind": "invite", "username": carol.username}])
    refused = [
        api_client_for(bob).post(
            games_url(lobby["id"], "join"), {"contribution": bad}, format="json"
        ),
        api_client_for(carol).post(
            games_url(invite["id"], "invitation"),
            {"accept": True, "contribution": bad},
            format="json",
        ),
        api_client_for(carol).post(
            api_url("invitations", invite["id"], "accept"), {"contribution": bad}, format="json"
        ),
    ]
    for response in refused:
        assert response.status_code == 400, response.json()
        assert response.json()["code"] == "invalid_contribution"
        assert "printable ASCII" in response.json()["detail"]
    assert [(s.user_id, s.invitation) for s in seats(Game(pk=lobby["id"]))][1] == (None, "none")
    assert seats(Game(pk=invite["id"]))[1].invitation == Seat.Invitation.PENDING
    assert set(Game.objects.values_list("status", flat=True)) == {Game.Status.OPEN}


def test_a_bad_contribution_from_the_join_form_is_refused_with_a_message(alice, bob):
    lobby = create_game_by_api(alice, [{"kind": "open"}])
    response = client_for(bob).post(
        f"/games/{lobby['id']}/join/", {"contribution": "no spaces please"}, follow=True
    )
    assert "printable ASCII" in response.content.decode()
    assert seats(Game(pk=lobby["id"]))[1].user_id is None


# -- games from before deals could be checked ----------------------------------------------------


def test_a_game_without_a_seed_plays_on_as_before(alice, bob):
    """A game created before this change (no seed, no commitment) starts and deals at random,
    and says its deals are not verifiable."""
    view = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    Game.objects.filter(pk=view["id"]).update(deal_seed="", deal_commitment="")
    game = services.invitation_respond(game_id=view["id"], user=bob, accept=True)
    assert game.status == Game.Status.ACTIVE
    game = play_forward(game, until=round_over(1), seed=3)
    assert game.engine_state().round == 2
    shown = api_client_for(alice).get(games_url(game.id)).json()["deals"]
    assert shown == {
        "verifiable": False,
        "scheme": None,
        "commitment": None,
        "seed": None,
        "contributions": None,
    }
    page = client_for(alice).get(f"/games/{game.id}/").content.decode()
    assert "Deals not verifiable" in page
    game = finish(game)
    assert "not verifiable" in fairness.verify_export(export(game)).problem
    assert selectors.game_get(game_id=game.id).status == Game.Status.FINISHED


# -- the forms that take a seat ------------------------------------------------------------------


def test_every_form_that_takes_a_seat_carries_a_contribution(alice, bob, carol):
    """The hidden field the page's script fills (static/games/contribution.js) is on the new-game
    form, the lobby's and the board's Join buttons and both Accept buttons; what it carries
    becomes the player's contribution."""
    creator = client_for(alice)
    page = creator.get("/games/new/").content.decode()
    assert "games/contribution.js" in page
    defaults = form_defaults(page, "new-game-form")
    assert defaults["contribution"] == ""  # the script fills it as the form is sent
    response = creator.post(
        "/games/new/", {**defaults, "seat2_kind": "open", "contribution": "from-the-browser"}
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert seats(game)[0].deal_contribution == "from-the-browser"

    field = '<input type="hidden" name="contribution" value="">'
    join_url = f"/games/{game.id}/join/"
    lobby = client_for(bob).get("/lobby/").content.decode()
    board = client_for(bob).get(f"/games/{game.id}/").content.decode()
    for content in (lobby, board):
        form = content[content.index(f'action="{join_url}"') :]
        assert field in form[: form.index("</form>")]

    invite = create_game_by_api(alice, [{"kind": "invite", "username": carol.username}])
    accept_url = f"/games/{invite['id']}/invitation/"
    for url in ("/games/", f"/games/{invite['id']}/"):
        content = client_for(carol).get(url).content.decode()
        form = content[content.index(f'action="{accept_url}"') :]
        assert field in form[: form.index("</form>")]
    client_for(carol).post(accept_url, {"accept": "1", "contribution": "carols-coins"})
    assert seats(Game(pk=invite["id"]))[1].deal_contribution == "carols-coins"
