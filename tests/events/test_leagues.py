"""Leagues on PostgreSQL: joining and leaving (and what a hostile player cannot do), the first
season placed by rating, a season rolled over to the next with promotion and relegation, leavers
and newcomers, and a rollover run twice forming one season."""

from datetime import timedelta

import pytest
from django.utils import timezone

from events import leagues, sweeps
from events.errors import AlreadyEntered, EventConflict, EventLimit, NotEligible, NotEntered
from events.models import Entry, Event, EventTable, League, LeagueMember, Season
from games.models import Game
from ratings.models import Rating
from tests.support import factories
from tests.support.leagues import finish_division

pytestmark = pytest.mark.django_db(transaction=False)


def a_league(**changes) -> League:
    values = {"name": "Spring league", "slug": "spring", "division_size": 4, "movers": 1}
    values.update(changes)
    return League.objects.create(**values)


def rated_members(league: League, count: int, prefix: str = "m"):
    """`count` members of `league`, the first rated highest (2000, 1990, ...)."""
    users = []
    for n in range(count):
        user = factories.user(f"{prefix}{n}")
        Rating.objects.create(user=user, rating=2000 - 10 * n)
        leagues.league_join(slug=league.slug, user=user)
        users.append(user)
    return users


def entrants(event: Event) -> list[int]:
    """The division's players, best rated first (their seeding)."""
    rows = Entry.objects.filter(event=event).order_by("-rating", "user_id")
    return list(rows.values_list("user_id", flat=True))


# -- joining and leaving -------------------------------------------------------------------------


def test_a_player_joins_and_leaves(alice):
    league = a_league()
    leagues.league_join(slug="spring", user=alice)
    assert leagues.is_member(league, alice)
    assert leagues.get_league("spring").member_count == 1
    leagues.league_leave(slug="spring", user=alice)
    assert not leagues.is_member(league, alice)


def test_a_player_cannot_join_twice_nor_leave_for_someone_else(alice, bob):
    a_league()
    leagues.league_join(slug="spring", user=alice)
    with pytest.raises(AlreadyEntered):
        leagues.league_join(slug="spring", user=alice)
    # Bob is not in it: leaving answers so, and Alice stays.
    with pytest.raises(NotEntered):
        leagues.league_leave(slug="spring", user=bob)
    assert list(LeagueMember.objects.values_list("user__username", flat=True)) == ["alice"]


def test_unknown_leagues_and_second_accounts_are_refused(alice):
    a_league()
    for slug in ("autumn", None, 7, "spring\x00"):
        with pytest.raises(leagues.LeagueNotFound):
            leagues.league_join(slug=slug, user=alice)
        with pytest.raises(leagues.LeagueNotFound):
            leagues.league_leave(slug=slug, user=alice)
    leagues.league_join(slug="spring", user=alice)
    twin = factories.user("alice2", email="Alice+leagues@example.com")
    with pytest.raises(NotEligible):
        leagues.league_join(slug="spring", user=twin)
    assert LeagueMember.objects.count() == 1


def test_joining_again_and_again_has_a_daily_limit(alice, monkeypatch):
    monkeypatch.setattr(leagues, "JOINS_PER_DAY", 2)
    a_league()
    for _ in range(2):
        leagues.league_join(slug="spring", user=alice)
        leagues.league_leave(slug="spring", user=alice)
    with pytest.raises(EventLimit):
        leagues.league_join(slug="spring", user=alice)
    assert not LeagueMember.objects.exists()


def test_a_member_who_leaves_plays_out_the_running_season():
    league = a_league()
    users = rated_members(league, 4)
    season = leagues.season_start(league=league)
    leagues.league_leave(slug="spring", user=users[0])
    (division,) = leagues.divisions_of(season)
    entry = Entry.objects.get(event=division, user=users[0])
    assert entry.is_active and division.status == Event.Status.RUNNING
    games = Game.objects.filter(event_table__event=division, seats__user=users[0])
    assert games.count() == 3
    assert set(games.values_list("status", flat=True)) == {Game.Status.ACTIVE}


# -- seasons -------------------------------------------------------------------------------------


def test_the_first_season_places_the_members_by_rating():
    league = a_league()
    users = rated_members(league, 9)
    season = leagues.season_start(league=league)
    assert season.number == 1 and season.closed_at is None
    assert season.ends_at - season.starts_at == timedelta(days=league.season_days)
    top, second = leagues.divisions_of(season)
    assert (top.level, second.level) == (1, 2)
    assert entrants(top) == [u.pk for u in users[:5]]
    assert entrants(second) == [u.pk for u in users[5:]]
    for division in (top, second):
        assert division.status == Event.Status.RUNNING
        assert division.format == Event.Format.ROUND_ROBIN and division.organiser is None
        # A round robin of two a table: every pair meets once, every game started.
        n = division.max_entrants
        games = Game.objects.filter(event_table__event=division)
        assert games.count() == n * (n - 1) // 2
        assert set(games.values_list("status", flat=True)) == {Game.Status.ACTIVE}
    # Divisions are listed with their league, not among the events.
    with pytest.raises(EventConflict):
        leagues.season_start(league=league)


def test_a_season_needs_four_players():
    league = a_league()
    rated_members(league, 3)
    with pytest.raises(EventConflict):
        leagues.season_start(league=league)
    assert not Season.objects.exists() and not Event.objects.exists()


def test_a_rollover_moves_the_best_up_and_the_worst_down(make_user):
    league = a_league()
    users = rated_members(league, 8)
    season = leagues.season_start(league=league)
    top, second = leagues.divisions_of(season)
    # Not over: nothing happens.
    assert leagues.season_rollover(season_id=season.pk) is None
    # The top division ends in its seeding order; the second upside down.
    finish_division(top, [u.pk for u in users[:4]])
    assert leagues.season_rollover(season_id=season.pk) is None  # the second still plays
    finish_division(second, [u.pk for u in reversed(users[4:])])
    # One player leaves, a newcomer (rated highest of all) joins.
    leagues.league_leave(slug="spring", user=users[1])
    newcomer = make_user("newcomer")
    Rating.objects.create(user=newcomer, rating=2500)
    leagues.league_join(slug="spring", user=newcomer)

    nxt = leagues.season_rollover(season_id=season.pk)

    season.refresh_from_db()
    assert season.closed_at is not None
    assert nxt is not None and nxt.number == 2
    new_top, new_second = leagues.divisions_of(nxt)
    ids = {u.pk: n for n, u in enumerate(users)}
    placed = [
        sorted((ids.get(e.user_id, "new") for e in Entry.objects.filter(event=d)), key=str)
        for d in (new_top, new_second)
    ]
    # The ladder: 0, 1, 2 and 7 (who won the second and goes up), then 3 (last of the top, down),
    # 6, 5, 4; 1 left, and the newcomer comes at the bottom whatever their rating: cut into two
    # divisions of four.
    assert placed == [[0, 2, 3, 7], [4, 5, 6, "new"]]
    assert all(d.status == Event.Status.RUNNING for d in (new_top, new_second))
    playing = Entry.objects.filter(event__season=nxt).values_list("user_id", flat=True)
    assert users[1].pk not in playing


def test_a_rollover_twice_forms_one_season():
    league = a_league()
    users = rated_members(league, 4)
    season = leagues.season_start(league=league)
    (division,) = leagues.divisions_of(season)
    finish_division(division, [u.pk for u in users])
    first = leagues.season_rollover(season_id=season.pk)
    again = leagues.season_rollover(season_id=season.pk)
    assert first is not None and again == first
    assert Season.objects.filter(league=league).count() == 2
    assert Event.objects.filter(season=first).count() == 1
    assert EventTable.objects.filter(event__season=first).count() == 6


def test_a_season_past_its_end_rolls_over_by_the_sweep_with_its_standings_as_they_stand():
    league = a_league()
    users = rated_members(league, 5)
    season = leagues.season_start(league=league)
    Season.objects.filter(pk=season.pk).update(ends_at=timezone.now() - timedelta(minutes=1))
    assert sweeps.sweep()["seasons"] == 1
    assert sweeps.sweep()["seasons"] == 0
    season.refresh_from_db()
    assert season.closed_at is not None
    nxt = Season.objects.get(league=league, number=2)
    (division,) = leagues.divisions_of(nxt)
    assert sorted(entrants(division)) == sorted(u.pk for u in users)
    # The old division plays on (its games are ordinary games), but no longer for the league.
    assert leagues.divisions_of(season).get().status == Event.Status.RUNNING


def test_a_league_left_with_too_few_closes_its_season_and_forms_none():
    league = a_league()
    users = rated_members(league, 4)
    season = leagues.season_start(league=league)
    (division,) = leagues.divisions_of(season)
    finish_division(division, [u.pk for u in users])
    leagues.league_leave(slug="spring", user=users[0])
    assert leagues.season_rollover(season_id=season.pk) is None
    season.refresh_from_db()
    assert season.closed_at is not None
    assert Season.objects.count() == 1


def test_a_players_league_history_shows_where_they_finished():
    league = a_league()
    users = rated_members(league, 4)
    season = leagues.season_start(league=league)
    (division,) = leagues.divisions_of(season)
    (line,) = leagues.league_history(users[2])
    assert line.rank is None and line.players == 4  # nothing played yet
    finish_division(division, [u.pk for u in reversed(users)])
    leagues.season_rollover(season_id=season.pk)
    newest, oldest = leagues.league_history(users[2])
    assert (newest.season.number, oldest.season.number) == (2, 1)
    assert oldest.rank == 2 and oldest.players == 4 and oldest.league == league


def test_a_players_page_links_to_their_league_history(client):
    league = a_league()
    users = rated_members(league, 4)
    leagues.season_start(league=league)
    page = client.get(f"/players/{users[0].username}/").content.decode()
    assert f'href="/players/{users[0].username}/leagues/"' in page


# -- pages ---------------------------------------------------------------------------------------


def test_the_pages_show_the_leagues_divisions_and_standings(client, client_for):
    league = a_league(name="Spring <league>")
    users = rated_members(league, 5)
    assert b"There are no leagues yet" not in client.get("/leagues/").content
    page = client.get("/leagues/spring/")
    assert page.status_code == 200
    assert "The first season has not started yet." in page.content.decode()
    season = leagues.season_start(league=league)
    (division,) = leagues.divisions_of(season)
    html = client.get("/leagues/spring/").content.decode()
    assert "Spring &lt;league&gt;" in html and "Spring <league>" not in html
    assert f"/events/{division.pk}/" in html
    assert all(f"/players/{u.username}/" in html for u in users)
    assert 'id="sign-in-to-join"' in html
    mine = client_for(users[0]).get("/leagues/spring/").content.decode()
    assert 'id="leave-form"' in mine and 'id="my-division"' in mine
    assert client.get("/leagues/autumn/").status_code == 404
    history = client.get(f"/players/{users[0].username}/leagues/").content.decode()
    assert "/leagues/spring/" in history
    assert client.get("/players/nobody/leagues/").status_code == 404


def test_the_join_and_leave_forms(alice, client, client_for):
    a_league()
    page = client_for(alice)
    answer = page.post("/leagues/spring/join/")
    assert answer.status_code == 302 and answer["Location"] == "/leagues/spring/"
    assert LeagueMember.objects.filter(user=alice).exists()
    again = page.post("/leagues/spring/join/")
    assert again.status_code == 409
    assert "You are in this league already." in again.content.decode()
    assert page.post("/leagues/spring/leave/").status_code == 302
    assert not LeagueMember.objects.exists()
    assert page.post("/leagues/spring/leave/").status_code == 409
    assert page.post("/leagues/autumn/join/").status_code == 404
    assert page.get("/leagues/spring/join/").status_code == 405
    # Not signed in: to the sign-in page, nothing written.
    assert client.post("/leagues/spring/join/").status_code == 302
    assert not LeagueMember.objects.exists()


# -- the API -------------------------------------------------------------------------------------


def test_the_api_lists_and_shows_leagues(client, api_client_for):
    league = a_league()
    users = rated_members(league, 4)
    leagues.season_start(league=league)
    (row,) = client.get("/api/leagues/").json()
    assert row["slug"] == "spring" and row["members"] == 4 and row["season"]["number"] == 1
    detail = client.get("/api/leagues/spring/").json()
    assert detail["is_member"] is False
    (division,) = detail["divisions"]
    assert division["level"] == 1 and division["status"] == "running"
    assert sorted(s["username"] for s in division["standings"]) == sorted(u.username for u in users)
    assert api_client_for(users[0]).get("/api/leagues/spring/").json()["is_member"] is True
    missing = client.get("/api/leagues/autumn/")
    assert missing.status_code == 404 and missing.json()["code"] == "league_not_found"


def test_the_api_joins_and_leaves_for_the_caller_only(alice, bob, client, api_client_for):
    a_league()
    api = api_client_for(alice)
    joined = api.post("/api/leagues/spring/join/")
    assert joined.status_code == 201 and joined.json()["league"] == "spring"
    twice = api.post("/api/leagues/spring/join/")
    assert twice.status_code == 409 and twice.json()["code"] == "already_entered"
    # Bob leaving answers for Bob alone: he is not in it, and Alice stays.
    bobs = api_client_for(bob).post("/api/leagues/spring/leave/")
    assert bobs.status_code == 409 and bobs.json()["code"] == "not_entered"
    assert LeagueMember.objects.filter(user=alice).exists()
    assert client.post("/api/leagues/spring/join/").status_code in (401, 403)
    assert api.post("/api/leagues/spring/leave/").status_code == 204
    assert api.post("/api/leagues/autumn/join/").status_code == 404
    assert not LeagueMember.objects.exists()


def test_the_schema_describes_the_leagues_api(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    assert paths["/api/leagues/"]["get"]["operationId"] == "leagues_list"
    assert paths["/api/leagues/{slug}/"]["get"]["operationId"] == "league"
    join = paths["/api/leagues/{slug}/join/"]["post"]
    assert join["operationId"] == "league_join" and {"201", "404", "409"} <= set(join["responses"])
    assert set(paths["/api/leagues/{slug}/leave/"]["post"]["responses"]) >= {"204", "409"}


def test_the_admin_starts_a_season(admin_client):
    league = a_league()
    rated_members(league, 4)
    answer = admin_client.post(
        "/admin/events/league/",
        {"action": "start_season", "_selected_action": [league.pk]},
        follow=True,
    )
    assert answer.status_code == 200
    assert Season.objects.filter(league=league, number=1).exists()
