"""The history table of finished games (`games/_history_table.html`), on the history page and
on a player's page.

A row is made once per page, not by template tags per row and player: each player's link and
place and each game's kind and replay link (`history_table`, `core.pages.links`). Its markup is kept
in the cache under a digest of what it shows, the language and the time zone
(`history_row_markup`): a finished game's row reads the same until its content changes (a
player's new display name), which changes the key. A page reads its rows' markup in one cache
call and renders only the rows it did not find.

Measured at 10,000 players and 100,000 finished games (`make bench-history`): the table's 20
rows took 17 ms of a 55 ms page with a tag, a translation and an include per row and player;
with a `{% cache %}` per row, 20 cache round trips still took 5-8 ms.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.pages.links import link_maker
from core.pages.text import ordinal
from games.models import Game
from games.presenters.lists import history_rows

ROW_SECONDS = 3600
"""How long a row's markup is kept: its key changes with its content, so this only bounds the
memory that rows nobody reads again hold (what a crawl of every page leaves lasts an hour)."""


def history_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`presenters.lists.history_rows` as the table shows them: each player's name, link,
    score, note and place, the game's kind, end and replay link, and the row's `key` (a digest
    of all of that)."""
    player_link = link_maker("accounts:player", "sample-player")
    replay_link = link_maker("games:replay", uuid.UUID(int=0))
    table = []
    for row in rows:
        players = [
            {
                "name": p["display_name"],
                "url": player_link(p["username"]) if p["username"] else None,
                "score": p["final_score"],
                "note": _("(resigned)")
                if p["resigned"]
                else _("(timed out)")
                if p["autoplay"]
                else "",
                "place": ordinal(p["place"]),
                "won": p["place"] == 1,
            }
            for p in row["players"]
        ]
        kind = ngettext("%(players)s player", "%(players)s players", row["num_players"]) % {
            "players": row["num_players"]
        }
        shown = {
            "id": row["id"],
            "players": players,
            "kind": f"{kind} · {str(Game.Variant(row['variant']).label).lower()}",
            "finished_at": row["finished_at"],
            "replay_url": replay_link(row["id"]),
        }
        text = json.dumps(shown, sort_keys=True, default=str).encode()
        table.append({**shown, "key": hashlib.blake2b(text, digest_size=16).hexdigest()})
    return table


def history_row_markup(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row of `history_table` with its `markup` (`games/_history_row.html`) in the active
    language and time zone: read from the cache in one call, rendered (and kept) where it is
    not there. With the cache down every row is rendered, as it was before there was one."""
    suffix = f"{translation.get_language()}:{timezone.get_current_timezone_name()}"
    keys = [f"games:history-row:{row['key']}:{suffix}" for row in table]
    kept = cache.get_many(keys)
    made = {}
    rows = []
    for key, row in zip(keys, table, strict=True):
        html = kept.get(key)
        if not isinstance(html, str):
            html = made[key] = render_to_string("games/_history_row.html", {"g": row})
        # Our template's output, escaped there (also when it comes back from the cache).
        rows.append({**row, "markup": mark_safe(html)})  # noqa: S308
    if made:
        cache.set_many(made, ROW_SECONDS)
    return rows


def history_markup(games: Any) -> list[dict[str, Any]]:
    """A page of `selectors.finished_games()` as the table's rows, ready to show."""
    return history_row_markup(history_table(history_rows(games)))
