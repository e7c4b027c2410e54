"""The computer levels on the players' scale (#36): fitted to the calibration arena and to their
games against people with an established rating, each person's weight capped; shown on their
pages, on the new-game form, on the leaderboard when asked, and in the API."""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest
import time_machine
from django.core.management import call_command
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from azul.ai.bots import LEVELS as ENGINE_LEVELS
from games.models import Game, Seat
from ratings import levels, selectors, services, skill
from ratings.models import LevelRating, PlayerRecord, Rating
from ratings.serializers import ComputerLevelDetailSerializer, ComputerLevelSerializer
from tests.support.factories import finished_game

# --- The arithmetic -------------------------------------------------------------------------


def calibration_fit() -> dict[str, levels.LevelSkill]:
    return levels.fit(run.pairing() for run in levels.calibration())


def test_the_levels_are_the_games_and_the_engines():
    assert list(levels.LEVELS) == list(Seat.BotLevel.values) == list(ENGINE_LEVELS)


# Steps measured under the 70% goal, each with where it stands (research/BOTS.md): master
# against the strong that plays 2-player colored games by the fitted tables and the search's
# knobs won 59.8% [52.8, 66.3] of 200 games (#36 is blocked on it: BOTS.md says why).
BELOW_THE_GOAL = {("master", "strong")}


def test_each_shipped_step_is_a_clear_one():
    """The calibration arena has every step between neighbours, each won by the level above in
    at least 70% of its games (the issue's spacing) but the steps named in BELOW_THE_GOAL, and
    each level measurably stronger than the one below (its interval above even)."""
    runs = levels.calibration()
    assert [(r.weaker, r.stronger) for r in runs] == list(
        zip(levels.LEVELS, levels.LEVELS[1:], strict=False)
    )
    for run in runs:
        assert run.games >= 80, run
        assert run.interval()[0] > 0.5, run
        below = (run.stronger, run.weaker) in BELOW_THE_GOAL
        assert (run.win_rate >= 0.70) != below, run  # a step that reaches the goal leaves the set
        # Runs recorded before tools/ became research/ name it as they were run (the API shows
        # the command): the same modules, now research.calibrate and research.arena.
        assert run.command.startswith(("python -m tools.", "python -m research.")), run


def test_the_calibration_alone_places_medium_where_a_new_player_starts():
    fitted = calibration_fit()
    assert fitted["medium"].mu == pytest.approx(skill.INITIAL_MU, abs=1e-6)
    assert fitted["medium"].sigma == pytest.approx(skill.INITIAL_SIGMA, rel=1e-3)
    assert round(fitted["medium"].rating) == round(skill.INITIAL_DISPLAY)
    mus = [fitted[level].mu for level in levels.LEVELS]
    assert mus == sorted(mus) and len(set(mus)) == len(mus)
    # Each step as the arena measured it: the fitted chance is near the measured rate (the weak
    # prior on each step pulls a little toward even).
    for run in levels.calibration():
        chance = levels.expected(fitted[run.stronger].mu, 0, fitted[run.weaker].mu, 0)
        low, high = run.interval()
        assert low <= chance <= high, (run, chance)


def test_the_fit_recovers_a_known_gap():
    gap = 6.0
    chance = levels.expected(skill.INITIAL_MU + gap, 0, skill.INITIAL_MU, 0)
    games = 10_000
    fitted = levels.fit(
        [levels.Pairing("strong", "medium", chance * games, games)], levels=("medium", "strong")
    )
    assert fitted["strong"].mu - fitted["medium"].mu == pytest.approx(gap, abs=0.1)


def test_results_against_people_move_every_level_with_the_anchor():
    before = calibration_fit()
    people = [
        levels.Pairing("medium", None, score=5.0, games=10.0, mu=35.0, sigma=2.0) for _ in range(30)
    ]
    after = levels.fit([*(run.pairing() for run in levels.calibration()), *people])
    # Even against people at mu 35: medium is placed near 35, far more surely than before.
    assert after["medium"].mu == pytest.approx(35.0, abs=1.5)
    assert after["medium"].sigma < before["medium"].sigma / 3
    for level in levels.LEVELS:
        shift = after[level].mu - before[level].mu
        assert shift == pytest.approx(after["medium"].mu - before["medium"].mu, abs=2.0), level


def test_expected_is_a_chance():
    assert levels.expected(25, 3, 25, 3) == pytest.approx(0.5)
    ahead = levels.expected(30, 3, 25, 3)
    assert 0.5 < ahead < 1 and ahead == pytest.approx(1 - levels.expected(25, 3, 30, 3))


# --- Fitted from the site's games -----------------------------------------------------------


def established(user, mu: float = 35.0, sigma: float = 2.0, opponents: int = 5) -> None:
    """`user` with a rating from rated games against `opponents` people (written directly)."""
    Rating.objects.create(
        user=user, mu=mu, sigma=sigma, rating=skill.display(mu, sigma), opponents=opponents
    )


def against_level(person, level: str, person_won: bool, **seat) -> Game:
    """A finished 2-player game of `person` against `level`."""
    places = (1, 2) if person_won else (2, 1)
    game = finished_game([(person, 50, places[0]), (None, 40, places[1])])
    Seat.objects.filter(game=game, kind=Seat.Kind.COMPUTER).update(bot_level=level)
    if seat:
        Seat.objects.filter(game=game, user=person).update(**seat)
    return game


def medium() -> LevelRating:
    return LevelRating.objects.get(level="medium")


@pytest.mark.django_db
def test_games_against_established_people_place_the_levels(players):
    people = players(10)
    for person in people:
        established(person)
        against_level(person, "medium", person_won=True)
    services.levels_rate()

    row = medium()
    assert (row.games, row.people, row.wins, row.losses, row.ties) == (10, 10, 0, 10, 0)
    assert row.mu < skill.INITIAL_MU  # lost to people at mu 35 every time
    assert row.rating == pytest.approx(max(0.0, skill.display(row.mu, row.sigma)))
    # Every level moved with it; none of them played.
    fitted = {r.level: r for r in LevelRating.objects.all()}
    before = calibration_fit()
    assert fitted["master"].mu < before["master"].mu
    assert fitted["strong"].games == 0
    # A game against the computer moves no person's rating.
    assert set(Rating.objects.values_list("mu", flat=True)) == {35.0}
    assert not PlayerRecord.objects.exists()


@pytest.mark.django_db
def test_new_accounts_abandoned_seats_studies_and_other_levels_do_not_count(players):
    newcomer, walked_away, honest = players(3)
    established(newcomer, opponents=2)  # fewer different opponents than RATINGS_MIN_OPPONENTS
    established(walked_away)
    established(honest)
    for _ in range(3):
        against_level(newcomer, "medium", person_won=True)
        against_level(walked_away, "medium", person_won=False, autoplay=True)
    study = against_level(honest, "medium", person_won=True)
    Game.objects.filter(pk=study.pk).update(is_study=True)
    against_level(honest, "strong", person_won=True)
    services.levels_rate()

    assert (medium().games, medium().people) == (0, 0)
    # What counts is the honest player's win against strong, and nothing else.
    only_that = levels.fit(
        [
            *(run.pairing() for run in levels.calibration()),
            levels.Pairing("strong", None, score=0.0, games=1.0, mu=35.0, sigma=2.0),
        ]
    )
    assert medium().mu == pytest.approx(only_that["medium"].mu, abs=1e-6)
    strong = LevelRating.objects.get(level="strong")
    assert (strong.games, strong.people, strong.losses) == (1, 1, 1)


@pytest.mark.django_db
def test_one_hostile_account_cannot_buy_a_level_its_rating(players, settings):
    """A player who loses to `medium` on purpose, over and over, counts as
    RATINGS_LEVEL_GAMES_PER_PERSON games, however many: what ten honest people say stands."""
    settings.RATINGS_LEVEL_GAMES_PER_PERSON = 10
    honest = players(10)
    for i, person in enumerate(honest):
        established(person, mu=25.0)
        against_level(person, "medium", person_won=i % 2 == 0)
    hostile = players(1)[0]
    established(hostile, mu=25.0)
    for _ in range(10):
        against_level(hostile, "medium", person_won=False)
    services.levels_rate()
    ten = medium().mu

    for _ in range(90):
        against_level(hostile, "medium", person_won=False)
    services.levels_rate()
    assert medium().games == 110  # all counted in its record
    assert medium().mu == pytest.approx(ten, abs=1e-6)  # but weighed as ten

    # Without the cap, the same games would have bought medium far more.
    settings.RATINGS_LEVEL_GAMES_PER_PERSON = 1000
    services.levels_rate()
    assert medium().mu > ten + 3


@pytest.mark.django_db
def test_a_four_player_game_weighs_one_game_in_pairs(players):
    a, b, c = players(3)
    for person in (a, b, c):
        established(person)
    game = finished_game([(a, 60, 1), (None, 50, 2), (b, 40, 3), (c, 30, 4)])
    Seat.objects.filter(game=game, kind=Seat.Kind.COMPUTER).update(bot_level="greedy")
    results = selectors.level_results()
    greedy = [p for p in results.pairings if p.a == "greedy" and p.b is None]
    assert sum(p.games * p.weight for p in greedy) == pytest.approx(1.0)
    assert sum(p.score * p.weight for p in greedy) == pytest.approx(2 / 3)
    record = results.records["greedy"]
    assert (len(record.games), len(record.people), record.wins, record.losses) == (1, 3, 2, 1)


@pytest.mark.django_db
def test_the_fit_runs_when_due_and_twice_changes_nothing(players, settings):
    settings.RATINGS_LEVELS_EVERY_SECONDS = 3600
    # Another process's sweep (a worker's, in another test) may have fitted them already.
    LevelRating.objects.all().delete()
    person = players(1)[0]
    established(person)
    against_level(person, "greedy", person_won=True)
    assert services.levels_rate_if_due() is True
    first = {r.level: (r.mu, r.sigma, r.games) for r in LevelRating.objects.all()}
    assert services.levels_rate_if_due() is False
    with time_machine.travel(timezone.now() + dt.timedelta(hours=2)):
        assert services.levels_rate_if_due() is True
    assert {r.level: (r.mu, r.sigma, r.games) for r in LevelRating.objects.all()} == first

    # `manage.py sweep` (what `make run` runs) does it too, when due; `rate_levels` at once.
    LevelRating.objects.all().delete()
    call_command("sweep")
    assert LevelRating.objects.count() == len(levels.LEVELS)
    out = io.StringIO()
    call_command("rate_levels", stdout=out)
    assert [line.split()[0] for line in out.getvalue().splitlines()] == list(levels.LEVELS)


# --- Shown ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_before_any_fit_the_pages_show_the_calibration(client):
    LevelRating.objects.all().delete()  # as a new site has them
    fitted = calibration_fit()
    body = APIClient().get("/api/computer-levels/").json()
    assert [row["level"] for row in body] == list(levels.LEVELS)
    assert {row["level"]: row["rating"] for row in body} == {
        level: round(fitted[level].rating) for level in levels.LEVELS
    }
    for row in body:
        assert set(row) == set(ComputerLevelSerializer().fields)
        assert row["updated_at"] is None


@pytest.mark.django_db
def test_a_levels_page_shows_its_rating_record_and_steps(players, client_for):
    person = players(1)[0]
    established(person, mu=30.0, sigma=3.0)
    against_level(person, "strong", person_won=False)
    services.levels_rate()
    strong = LevelRating.objects.get(level="strong")

    page = client_for(person).get(reverse("ratings:level", args=["strong"]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Rating: <strong>{round(strong.rating)}</strong>" in html
    assert "1 game against 1 people" in html
    assert 'href="/computer/medium/"' in html and 'href="/computer/master/"' in html
    # The steps from strong's side: what it won against medium, and against master.
    below = next(r for r in levels.calibration() if r.stronger == "strong")
    above = next(r for r in levels.calibration() if r.stronger == "master")
    # As the page rounds them (half up: 31.25 reads 31.3, where Python's format says 31.2).
    assert f"{floatformat(100 * below.win_rate, 1)}%" in html
    assert f"{floatformat(100 * (1 - above.win_rate), 1)}%" in html
    chance = levels.expected(30.0, 3.0, strong.mu, strong.sigma)
    assert f"about {round(100 * chance)}%" in html

    assert APIClient().get(reverse("ratings:level", args=["expert"])).status_code == 404
    missing = APIClient().get("/api/computer-levels/expert/")
    assert missing.status_code == 404
    assert missing.json()["detail"] == "There is no computer level called expert."
    detail = APIClient().get("/api/computer-levels/strong/").json()
    assert set(detail) == set(ComputerLevelDetailSerializer().fields)
    assert [step["opponent"] for step in detail["calibration"]] == ["medium", "master"]
    assert detail["calibration"][0]["win_rate"] == pytest.approx(below.win_rate)
    assert detail["calibration"][1]["win_rate"] == pytest.approx(1 - above.win_rate)


@pytest.mark.django_db
def test_the_levels_page_and_the_new_game_form_list_every_level(players, client_for):
    person = players(1)[0]
    established(person)
    rows = selectors.level_ratings()
    overview = client_for(person).get(reverse("ratings:levels")).content.decode()
    form = client_for(person).get(reverse("games:new")).content.decode()
    for row in rows:
        assert f'href="/computer/{row.level}/"' in overview
        assert f">{Seat.BotLevel(row.level).label} {row.rating}</a>" in form
    mine = round(skill.display(35.0, 2.0))
    assert f"Yours: {mine}" in form
    assert f"Your rating: <strong>{mine}</strong>" in overview


@pytest.mark.django_db
def test_the_leaderboard_shows_the_levels_only_when_asked(make_user):
    for name, rating in (("ann", 1700.0), ("ben", 1200.0), ("cat", 900.0), ("dan", 100.0)):
        user = make_user(name)
        Rating.objects.create(user=user, rating=rating, opponents=10)
        PlayerRecord.objects.create(user=user, variant="", num_players=0, games=9, rating=rating)
    plain = APIClient().get(reverse("ratings:leaderboard")).content.decode()
    assert "is-computer" not in plain
    html = APIClient().get(reverse("ratings:leaderboard"), {"computers": "on"}).content.decode()
    table = html[html.index("<tbody>") : html.index("</tbody>")]
    order = [chunk.split('"', 1)[0] for chunk in table.split('href="')[1:]]
    by_rating = sorted(
        [(r.rating, f"/computer/{r.level}/") for r in selectors.level_ratings()]
        + [
            (1700, "/players/ann/"),
            (1200, "/players/ben/"),
            (900, "/players/cat/"),
            (100, "/players/dan/"),
        ],
        key=lambda pair: -pair[0],
    )
    assert order == [url for _, url in by_rating]
    # People keep their ranks.
    assert [int(r) for r in re.findall(r"<tr>\s*<td>(\d+)</td>", table)] == [1, 2, 3, 4]

    body = APIClient().get("/api/leaderboard/", {"computers": "true"}).json()
    above = {row["level"]: row["players_above"] for row in body["computer_levels"]}
    for standing in selectors.level_ratings():
        assert above[standing.level] == sum(
            1 for rating in (1700, 1200, 900, 100) if rating >= standing.rating
        )
    assert APIClient().get("/api/leaderboard/").json()["computer_levels"] is None
    bad = APIClient().get("/api/leaderboard/", {"computers": "maybe"})
    assert bad.status_code == 400 and "computers" in bad.json()["detail"]


@pytest.mark.django_db
def test_the_level_pages_speak_korean(client):
    client.cookies["django_language"] = "ko"
    html = client.get(reverse("ratings:level", args=["master"])).content.decode()
    assert "<h2>보정 대국</h2>" in html
