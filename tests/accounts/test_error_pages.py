"""The error pages (404, 403, 500) in the site's layout, saying nothing of the error; the
favicon."""

import pytest
from django.template import loader
from django.test import Client

pytestmark = pytest.mark.django_db

LAYOUT = ('class="site-header"', "/static/css/site.css", 'rel="icon"')


@pytest.fixture
def error_urls(settings):
    settings.ROOT_URLCONF = "tests.accounts.error_urls"
    settings.DEBUG = False


def test_page_not_found_is_in_the_site_layout(client, alice, client_for):
    for who in (client, client_for(alice)):
        response = who.get("/no-such-page/")

        assert response.status_code == 404
        html = response.content.decode()
        assert all(part in html for part in LAYOUT)
        assert "Page not found" in html
        assert 'href="/"' in html


def test_a_missing_player_is_the_same_404_page(client):
    response = client.get("/players/nobody-at-all/")

    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_forbidden_is_in_the_site_layout_without_the_reason(client, error_urls):
    response = client.get("/test-errors/forbidden/")

    assert response.status_code == 403
    html = response.content.decode()
    assert all(part in html for part in LAYOUT)
    assert "Not allowed" in html
    assert "secret reason" not in html
    assert "Logging in" in html  # a visitor is offered to log in


def test_a_server_error_shows_no_details(error_urls):
    client = Client(raise_request_exception=False)

    response = client.get("/test-errors/broken/")

    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong" in html
    assert 'class="site-header"' in html and "/static/css/site.css" in html
    for detail in ("secret detail", "RuntimeError", "Traceback", "test-errors"):
        assert detail not in html


def test_the_500_page_needs_no_request_and_no_database(django_assert_num_queries):
    # Django's server_error view renders it with an empty context: no request, no context
    # processors; the error may be the database itself.
    with django_assert_num_queries(0):
        html = loader.get_template("500.html").render()

    assert "Something went wrong" in html


def test_favicon_ico_leads_to_the_icon(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response.url == "/static/favicon.ico"
    assert "max-age" in response["Cache-Control"]
    assert client.head("/favicon.ico").status_code == 302
    icon = client.get(response.url)
    assert icon.status_code == 200
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file


def test_every_page_links_the_svg_icon(client):
    html = client.get("/").content.decode()

    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    svg = client.get("/static/favicon.svg")
    assert svg.status_code == 200
