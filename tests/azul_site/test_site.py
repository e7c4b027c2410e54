import os

import pytest
from django.db import connection
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_healthz_answers_ok_after_pinging_the_database(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_suite_runs_on_postgresql_when_database_url_says_so():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        pytest.skip("DATABASE_URL does not name PostgreSQL")
    assert connection.vendor == "postgresql"


def test_home_page_invites_a_visitor_to_sign_up(client):
    response = client.get(reverse("home"))

    assert response.status_code == 200
    content = response.content.decode()
    assert "<title>Home · Azul</title>" in content
    assert reverse("account_signup") in content
    assert reverse("account_login") in content


def test_home_page_shows_account_links_to_a_logged_in_player(alice, client_for):
    response = client_for(alice).get(reverse("home"))

    content = response.content.decode()
    assert reverse("accounts:player", args=["alice"]) in content
    assert reverse("accounts:settings") in content
    assert reverse("account_logout") in content
    assert reverse("account_signup") not in content


def test_static_stylesheet_is_served(client, settings):
    response = client.get("/static/css/site.css")

    assert response.status_code == 200
