"""The installable app's files (azul_site/pwa.py): the manifest and its icons, the service worker's
headers and what it is told to keep, the offline page, and the policy that lets them load."""

import json
import re
import struct
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

from tests.azul_site.test_security_headers import policy
from tests.support.play import waiting_for

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# For "As my device" (the default) and visitors: the header's colour in each scheme.
THEME_BY_DEVICE = (
    '<meta name="theme-color" content="#1d2433" media="(prefers-color-scheme: light)">\n'
    '  <meta name="theme-color" content="#0a0c0f" media="(prefers-color-scheme: dark)">'
)


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header chunk (IHDR, always first)."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def static_file(url: str) -> bytes:
    assert url.startswith(settings.STATIC_URL) or url.startswith("/" + settings.STATIC_URL)
    name = url.split(settings.STATIC_URL, 1)[1]
    path = finders.find(name)
    assert path, url
    return Path(path).read_bytes()


def test_the_manifest_describes_an_installable_app_with_png_icons_of_their_sizes(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Azul by correspondence"
    assert manifest["short_name"] == "Azul"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    # The light theme's header and page, as site.css has them.
    css = (Path(settings.BASE_DIR) / "static/css/site.css").read_text()
    light = css[: css.index("prefers-color-scheme")]
    assert f"--header-bg: {manifest['theme_color']};" in light
    assert f"--paper: {manifest['background_color']};" in light
    seen = set()
    for icon in manifest["icons"]:
        assert icon["type"] == "image/png"
        width, height = png_size(static_file(icon["src"]))
        assert icon["sizes"] == f"{width}x{height}"
        seen.add((icon["sizes"], icon["purpose"]))
    assert seen == {
        (size, purpose) for size in ("192x192", "512x512") for purpose in ("any", "maskable")
    }


def test_the_manifest_is_in_the_readers_language(client):
    response = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="ko")
    manifest = json.loads(response.content)
    assert manifest["lang"] == "ko"
    assert manifest["name"] == "통신으로 즐기는 아줄"
    assert manifest["short_name"] == "아줄"
    assert "Accept-Language" in response["Vary"]


def test_a_maskable_icon_keeps_its_art_inside_the_safe_zone_on_a_filled_background():
    """The corners (outside the 80% circle, which a launcher may crop) are the background
    colour, opaque: read from the PNG's pixels."""
    import zlib

    data = Path(finders.find("pwa/maskable-192.png")).read_bytes()
    width, height = png_size(data)
    chunks, offset = [], 8
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if kind == b"IDAT":
            chunks.append(data[offset + 8 : offset + 8 + length])
        if kind == b"IHDR":
            bit_depth, colour_type = data[offset + 16], data[offset + 17]
        offset += 12 + length
    assert bit_depth == 8 and colour_type in (2, 6)  # RGB or RGBA, 8 bits
    channels = 4 if colour_type == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (
                    line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)
                ) & 255
        rows.append(bytes(line))
        previous = line

    def pixel(x: int, y: int) -> tuple[int, ...]:
        return tuple(rows[y][x * channels : x * channels + channels])

    ink = (0x1D, 0x24, 0x33)
    radius = 0.4 * width
    centre = (width - 1) / 2
    for y in range(height):
        for x in range(width):
            if (x - centre) ** 2 + (y - centre) ** 2 > radius**2:
                assert pixel(x, y)[:3] == ink, (x, y)
                assert channels == 3 or pixel(x, y)[3] == 255, (x, y)
    # And the art is there: the middle of the first tile is the board's blue.
    assert pixel(int(width * 0.33), int(height * 0.33))[:3] != ink


def test_the_service_worker_is_served_from_the_root_never_from_a_cache(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Cache-Control"] == "no-cache"
    text = response.content.decode()
    config = json.loads(re.search(r"^const CONFIG = (\{.*\});$", text, re.M).group(1))
    # What it keeps on install: the offline page and static files, nothing of a player.
    assert config["precache"][0] == config["offline"] == "/offline/"
    assert all(url.startswith("/static/") for url in config["precache"][1:])
    assert re.fullmatch(r"[0-9a-f]{12}", config["version"])
    # Asked again with its ETag: 304, so that the browser's check for a new version is cheap.
    again = client.get("/sw.js", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_the_offline_page_is_the_same_for_everyone_in_their_language(client, alice):
    anonymous = client.get("/offline/")
    assert anonymous.status_code == 200
    assert "You are offline" in anonymous.content.decode()
    client.force_login(alice)
    signed_in = client.get("/offline/").content.decode()
    assert "alice" not in signed_in.lower() and "Log out" not in signed_in
    assert "<script" not in signed_in  # nothing runs on a page kept for later
    korean = client.get("/offline/", HTTP_ACCEPT_LANGUAGE="ko")
    assert "오프라인 상태입니다" in korean.content.decode()


def test_every_page_links_the_manifest_and_registers_the_worker_by_a_static_script(
    client, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    client.force_login(alice)
    for path in ("/", f"/games/{game.id}/", "/rules/"):
        html = client.get(path).content.decode()
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, path
        assert THEME_BY_DEVICE in html, path
        assert re.search(r'<script src="/static/pwa/pwa\.js" data-sw="/sw\.js" defer>', html), path
        png_size(static_file(re.search(r'rel="apple-touch-icon" href="([^"]+)"', html).group(1)))


@pytest.mark.parametrize(("theme", "expected"), [("dark", "#0a0c0f"), ("light", "#1d2433")])
def test_the_browsers_bar_takes_the_header_colour_of_the_players_theme(
    client, alice, theme, expected
):
    css = (Path(settings.BASE_DIR) / "static/css/site.css").read_text()
    assert f"--header-bg: {expected};" in css
    alice.profile.theme = theme
    alice.profile.save()
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert re.findall(r'<meta name="theme-color"[^>]*>', html) == [
        f'<meta name="theme-color" content="{expected}">'
    ]
    assert THEME_BY_DEVICE in client.get("/offline/").content.decode()


@pytest.mark.parametrize("path", ["/", "/manifest.webmanifest", "/sw.js", "/offline/"])
def test_the_policy_lets_the_worker_and_the_manifest_load_from_the_site_alone(client, path):
    directives = policy(client.get(path))
    assert directives["worker-src"] == "'self'"
    assert directives["manifest-src"] == "'self'"
    assert directives["script-src"] == "'self'"
