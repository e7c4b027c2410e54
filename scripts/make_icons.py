"""Draws the installable app's icons (static/pwa/*.png) from the site's own tile art.

The art is the favicon's (static/favicon.svg: four tiles, two by two, on the header's ink) in
the board's own tile colours (static/games/board.css), drawn as SVG and photographed by
Chromium (Playwright), which draws it exactly as the browser draws the favicon. Run it again
after changing either file:

    python scripts/make_icons.py [--chromium PATH]

The PNGs are committed; nothing runs this at build or start-up.
"""

from __future__ import annotations

import argparse
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "static" / "pwa"
BOARD_CSS = ROOT / "static" / "games" / "board.css"
SITE_CSS = ROOT / "static" / "css" / "site.css"
# The favicon's geometry, on its 32-unit square: tiles of 10 with a gap of 2, 5 from the edge.
TILE, GAP = 10, 2
GRID = 2 * TILE + GAP


def css_colour(css: Path, name: str) -> str:
    match = re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{3,8}})", css.read_text())
    if not match:
        raise SystemExit(f"--{name} not found in {css.name}")
    return match.group(1)


@dataclass(frozen=True)
class Icon:
    name: str
    size: int
    # The share of the icon's side the two-by-two tiles take.
    grid: float
    # "rounded": the favicon's rounded square on a transparent canvas; "filled": the ink to
    # every edge (a maskable icon, which the system crops to its own shape; Apple's, which
    # must have no transparency); "none": no background (the monochrome badge).
    background: str
    monochrome: bool = False


ICONS = [
    # "any": the favicon as it is, larger.
    Icon("icon-192.png", 192, GRID / 32, "rounded"),
    Icon("icon-512.png", 512, GRID / 32, "rounded"),
    # Maskable: the tiles inside the central circle of 80% of the side (the safe zone), whose
    # largest square is 56.6% of it; 52% leaves a margin.
    Icon("maskable-192.png", 192, 0.52, "filled"),
    Icon("maskable-512.png", 512, 0.52, "filled"),
    Icon("apple-touch-icon.png", 180, 0.6, "filled"),
    # The small badge beside a notice in a phone's status bar: its alpha alone is drawn.
    Icon("badge-96.png", 96, 0.84, "none", monochrome=True),
]


def svg(icon: Icon) -> str:
    ink = css_colour(SITE_CSS, "ink")
    tiles = [css_colour(BOARD_CSS, c) for c in ("blue", "yellow", "red", "white")]
    size = icon.size
    unit = icon.grid * size / GRID  # pixels per favicon unit
    tile, gap = TILE * unit, GAP * unit
    start = (size - icon.grid * size) / 2
    radius = 2 * unit
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}">']
    if icon.background == "rounded":
        parts.append(f'<rect width="{size}" height="{size}" rx="{6 / 32 * size}" fill="{ink}"/>')
    elif icon.background == "filled":
        parts.append(f'<rect width="{size}" height="{size}" fill="{ink}"/>')
    for index, colour in enumerate(tiles):
        x = start + (index % 2) * (tile + gap)
        y = start + (index // 2) * (tile + gap)
        fill = "#fff" if icon.monochrome else colour
        parts.append(
            f'<rect x="{x}" y="{y}" width="{tile}" height="{tile}" rx="{radius}" fill="{fill}"/>'
        )
        if not icon.monochrome:
            # The board's tiles: a darker lower edge (board.css, `.tile`'s inset shadow).
            edge = max(1.0, tile * 0.07)
            parts.append(
                f'<clipPath id="tile{index}"><rect x="{x}" y="{y}" width="{tile}" '
                f'height="{tile}" rx="{radius}"/></clipPath>'
                f'<rect x="{x}" y="{y + tile - edge}" width="{tile}" height="{edge}" '
                f'fill="#000" fill-opacity=".18" clip-path="url(#tile{index})"/>'
            )
    parts.append("</svg>")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=shutil.which("chromium"), help="browser to draw with")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=args.chromium, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for icon in ICONS:
            page = browser.new_page(
                viewport={"width": icon.size, "height": icon.size}, device_scale_factor=1
            )
            page.set_content(
                '<html><body style="margin:0;background:transparent">'
                + svg(icon)
                + "</body></html>"
            )
            page.locator("svg").screenshot(path=str(OUT / icon.name), omit_background=True)
            page.close()
            print(OUT.relative_to(ROOT) / icon.name)
        browser.close()


if __name__ == "__main__":
    main()
