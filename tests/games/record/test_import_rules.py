"""Importing a study (issue #30): limited per day, labelled with who imported it, naming none of
the site's players, and refusing hostile fields with a 400 that names them (never a 500)."""

from __future__ import annotations

import copy
import datetime as dt

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import profile_update
from games.models import Game, LogEntry, Seat
from games.record.study_import import InvalidImport, study_import
from tests.games.record.test_export_import import IMPORT_URL, as_study_file, export_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def study_file(finished_colored) -> dict:
    """The finished game's export, its players renamed Ada and Grace."""
    return as_study_file(APIClient().get(export_url(finished_colored)).json())


def counts() -> tuple[int, int, int]:
    return Game.objects.count(), Seat.objects.count(), LogEntry.objects.count()


def post(client: APIClient, body: dict):
    return client.post(IMPORT_URL, body, format="json")


# -- the site's players ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "carol",  # a username
        "CAROL",  # in another letter case
        "c\u0430rol",  # with a Cyrillic "а": the same skeleton
        "Carol the Great",  # carol's display name (set below)
    ],
)
def test_a_study_may_not_name_a_player_of_the_site(study_file, alice, carol, api_client_for, name):
    profile_update(user=carol, display_name="Carol the Great")
    study_file["players"][1]["name"] = name
    before = counts()

    response = post(api_client_for(alice), study_file)

    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["code"] == "invalid_import"
    assert body["detail"].startswith("players[1]: ")
    assert "name of a player of this site" in body["detail"]
    assert counts() == before


def test_the_importer_may_name_themselves(study_file, alice, api_client_for):
    study_file["players"][0]["name"] = "alice"

    response = post(api_client_for(alice), study_file)

    assert response.status_code == 201, response.json()


# -- hostile fields -------------------------------------------------------------------------------


def _name(value):
    def change(body: dict) -> None:
        body["players"][0]["name"] = value

    return change


def _position(value):
    def change(body: dict) -> None:
        body["result"]["standings"][0]["position"] = value

    return change


@pytest.mark.parametrize(
    "change, reason",
    [
        (_name("Ada\u202eevil"), "players[0]: 'name' cannot contain control"),
        (_name("A" * 151), "players[0]: 'name' is longer than 150 characters"),
        (_name(["Ada"]), "players[0]: 'name' must be the player's name"),
        (_position([0]), "result.standings[0].position: must be a player's seat"),
        (_position({"0": 0}), "result.standings[0].position: must be a player's seat"),
        (_position("0"), "result.standings[0].position: must be a player's seat"),
        (_position(True), "result.standings[0].position: must be a player's seat"),
        (_position(7), "result.standings[0].position: must be a player's seat"),
    ],
    ids=[
        "bidi-override-in-name",
        "overlong-name",
        "list-as-name",
        "list-as-position",
        "object-as-position",
        "text-as-position",
        "bool-as-position",
        "no-such-position",
    ],
)
def test_a_hostile_field_is_a_400_naming_it(study_file, alice, api_client_for, change, reason):
    bad = copy.deepcopy(study_file)
    change(bad)
    before = counts()

    response = post(api_client_for(alice), bad)

    assert response.status_code == 400, response.content
    assert reason in response.json()["detail"], response.json()["detail"]
    assert counts() == before


def test_a_nul_is_refused_by_the_import_itself(study_file, alice, api_client_for):
    """The API's JSON parser refuses any NUL first; the import's own checks hold without it."""
    in_name = copy.deepcopy(study_file)
    in_name["players"][1]["name"] = "Grace\x00"
    in_move = copy.deepcopy(study_file)
    index = next(i for i, e in enumerate(in_move["entries"]) if e["kind"] == "move")
    in_move["entries"][index]["move"] += "\x00"
    before = counts()

    with pytest.raises(InvalidImport, match=r"players\[1\]: 'name' cannot contain .*U\+0000"):
        study_import(user=alice, data=in_name)
    with pytest.raises(InvalidImport) as refused:
        study_import(user=alice, data=in_move)
    assert refused.value.entry == index
    for bad in (in_name, in_move):
        assert post(api_client_for(alice), bad).status_code == 400
    assert counts() == before


# -- the label ------------------------------------------------------------------------------------


def test_a_study_says_who_imported_it_on_its_page_and_in_the_api(study_file, bob, api_client_for):
    profile_update(user=bob, display_name="Bobby")
    bob = User.objects.get(pk=bob.pk)  # as a request loads them, with the new profile
    body = post(api_client_for(bob), study_file).json()

    assert body["imported_by"] == "Bobby"
    export = APIClient().get(body["export_url"]).json()
    assert export["game"]["imported_by"] == "Bobby"
    page = Client().get(body["replay_url"])
    assert "imported by Bobby" in page.content.decode()


def test_a_game_played_here_has_no_importer(finished_colored):
    export = APIClient().get(export_url(finished_colored)).json()

    assert export["game"]["imported_by"] is None


# -- the daily limit ------------------------------------------------------------------------------


def test_imports_are_limited_per_player_per_day(study_file, alice, bob, api_client_for, settings):
    settings.GAMES_MAX_IMPORTS_PER_DAY = 2
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(2):
            assert post(api_client_for(alice), study_file).status_code == 201
        before = counts()

        refused = post(api_client_for(alice), study_file)

        assert refused.status_code == 429
        assert refused.json()["code"] == "throttled"
        assert "imported 2 games in the last 24 hours" in refused.json()["detail"]
        assert 0 < int(refused["Retry-After"]) <= 24 * 3600
        assert counts() == before
        # Another player's imports are counted apart.
        assert post(api_client_for(bob), study_file).status_code == 201

        clock.shift(dt.timedelta(days=1, seconds=1))
        assert post(api_client_for(alice), study_file).status_code == 201
