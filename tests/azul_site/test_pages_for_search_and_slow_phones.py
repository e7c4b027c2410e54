"""Pages a search engine and a slow phone like (issue #34): a description for each page, pages
and JSON compressed by the site where no proxy does it (and by the proxy's configuration), and a
translation catalogue that the browser keeps."""

import gzip
import html
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.play import finish

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def description(response) -> str:
    assert response.status_code == 200
    assert "{#" not in response.content.decode()  # a template comment shown as text
    found = re.findall(r'<meta name="description" content="([^"]*)">', response.content.decode())
    assert len(found) == 1, found
    return html.unescape(found[0])


def test_every_page_has_a_description_and_the_main_ones_their_own(
    alice, bob, client_for, start_game
):
    player = client_for(alice)
    playing = start_game(alice, bob)
    finished = finish(start_game(alice, bob))
    default = description(player.get(reverse("games:lobby"), **EN))
    assert "Azul" in default
    own = {
        "home": description(Client().get(reverse("home"), **EN)),
        "rules": description(Client().get(reverse("rules"), **EN)),
        "leaderboard": description(Client().get(reverse("ratings:leaderboard"), **EN)),
        "board": description(player.get(reverse("games:detail", args=[playing.id]), **EN)),
        "replay": description(player.get(reverse("games:replay", args=[finished.id]), **EN)),
    }
    for page, text in own.items():
        assert text != default and len(text) > 50, page
    assert len(set(own.values())) == len(own)
    assert "alice" in own["board"] and "bob" in own["board"]
    assert "alice" in own["replay"]

    korean = [
        description(player.get(reverse("games:lobby"), **KO)),
        description(Client().get(reverse("home"), **KO)),
        description(player.get(reverse("games:detail", args=[playing.id]), **KO)),
        description(player.get(reverse("games:replay", args=[finished.id]), **KO)),
    ]
    assert all(HANGUL.search(text) for text in korean), korean


def test_pages_and_json_are_compressed_for_a_client_that_can_read_it(
    alice, bob, client_for, start_game
):
    player = client_for(alice)
    start_game(alice, bob)
    for url in (reverse("home"), reverse("games:my_games"), reverse("games_api:games")):
        plain = player.get(url)
        compressed = player.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
        assert "Content-Encoding" not in plain, url
        assert compressed["Content-Encoding"] == "gzip", url
        assert "Accept-Encoding" in compressed["Vary"], url
        assert gzip.decompress(compressed.content).startswith(plain.content[:15]), url
        assert len(compressed.content) < len(plain.content), url
    assert player.get(reverse("games_api:games"))["Content-Type"].startswith("application/json")


def test_the_csrf_token_in_a_compressed_page_differs_from_page_to_page(alice, client_for):
    """BREACH needs a secret repeated alike in every response; Django masks the CSRF token
    afresh in each one."""
    player = client_for(alice)
    tokens = {
        re.search(
            rb'name="csrfmiddlewaretoken" value="([^"]+)"', player.get(reverse("home")).content
        )[1]
        for _ in range(3)
    }
    assert len(tokens) == 3


def test_the_proxy_compresses_pages_json_styles_and_scripts():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.search(r"^gzip on;", conf, re.M)
    assert re.search(r"^gzip_vary on;", conf, re.M)
    types = re.search(r"^gzip_types ([^;]+);", conf, re.M)[1].split()
    assert {"application/json", "text/css", "application/javascript"} <= set(types)


def test_the_translation_catalogue_is_kept_by_the_browser_and_revalidated_per_language():
    url = reverse("javascript-catalog")
    english, korean = Client().get(url, **EN), Client().get(url, **KO)
    assert english.status_code == korean.status_code == 200
    assert english["ETag"] != korean["ETag"]
    max_age = int(re.search(r"max-age=(\d+)", english["Cache-Control"])[1])
    assert max_age >= 24 * 60 * 60
    vary = {v.strip().lower() for v in english["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary

    again = Client().get(url, HTTP_IF_NONE_MATCH=korean["ETag"], **KO)
    assert again.status_code == 304
    assert "max-age" in again["Cache-Control"]
    # The other language's catalogue is not taken for this one.
    assert Client().get(url, HTTP_IF_NONE_MATCH=korean["ETag"], **EN).status_code == 200
