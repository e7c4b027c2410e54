"""Deals anyone can check: every round's factory fill follows from a seed the server committed
to before anyone sat down, mixed with a contribution from each player.

The scheme, ``azul-deals/1``, in full (enough to check a game in another language):

1. **Commitment.** When a game is created the server picks a secret *seed* (32 random bytes) and
   publishes its *commitment*, ``SHA-256(seed)`` in lower-case hex (:func:`commitment`). The seed
   stays secret until the game is over.
2. **Contributions.** Each player contributes a short text as they take their seat: 1 to 64
   printable ASCII characters, ``!`` to ``~`` (:func:`contribution_problem`). A seat without
   one (a computer's) counts as the empty text.
3. **Deal key.** When the game starts, ``key = SHA-256(part(b"azul-deals/1") || part(seed) ||
   part(c1) || ... || part(cN))`` with the contributions in seat order, where ``part(b)`` is
   ``b``'s length as a 4-byte big-endian integer followed by ``b`` (:func:`deal_key`). Nobody
   knows the key before the last seat is taken: not the server (the contributions come after
   its commitment) and not the players (the seed is secret).
4. **Streams.** The stream for a *purpose* and a *number* is the bytes of
   ``SHA-256(key || purpose || number as 4 bytes big-endian || i as 8 bytes big-endian)`` for
   ``i = 0, 1, 2, ...`` one after the other (:class:`Stream`). A whole number below ``n`` is
   read by rejection, so that every answer is equally likely: read the next 4 bytes as a
   big-endian ``x``; if ``x < 2**32 - 2**32 % n`` the answer is ``x % n``, else read again.
5. **First player.** The number below the number of players read from the stream
   ``(b"first-player", 0)`` (:func:`first_player`).
6. **Each round's deal** reads the stream ``(b"deal", r)`` for round ``r`` (1 for the first
   deal) (:func:`deal_tiles`). The bag's tiles are listed in color order (every blue, then
   yellow, red, black, white: as many of each as the bag holds). For each tile a factory needs,
   factory 1 first, four each, read a number ``i`` below the number of tiles in the list and
   take the ``i``-th tile (from 0) out of the list, the rest keeping their order. When the list
   is empty and factories still need tiles, the lid's tiles, listed the same way, are poured in
   (rulebook, "Preparing the next round"); when both are empty the rest of the factories stay
   short.

Only Python's :mod:`hashlib` is used, never :mod:`random`, whose algorithms Python does not
promise to keep: a game dealt today checks the same on any later version. :func:`verify_export`
checks a whole game (``python -m azul.verify export.json``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import IllegalMove
from .log import LogEntry, apply_entry
from .mechanics import tally
from .notation import COLORS
from .rules import new_game
from .state import TILES_PER_FACTORY, State

SCHEME = "azul-deals/1"
"""The name of the scheme this module implements, as an export records it."""

CONTRIBUTION_MAX = 64
"""The most characters a player's contribution may have."""

SEED_BYTES = 32
"""The length of the seed the site picks (any length checks the same)."""


def commitment(seed: bytes) -> str:
    """The commitment to ``seed``: its SHA-256, in lower-case hex."""
    return hashlib.sha256(seed).hexdigest()


def contribution_problem(text: object) -> str | None:
    """Why ``text`` cannot be a player's contribution (in English), or None if it can."""
    if not isinstance(text, str):
        return "a contribution is text"
    if not 1 <= len(text) <= CONTRIBUTION_MAX:
        return f"a contribution has 1 to {CONTRIBUTION_MAX} characters"
    if any(not "!" <= ch <= "~" for ch in text):
        return "a contribution has only printable ASCII characters, without spaces"
    return None


def _part(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def deal_key(seed: bytes, contributions: Sequence[str | None]) -> bytes:
    """The game's deal key: the seed mixed with the contributions, in seat order (None or ``""``
    for a seat without one)."""
    parts = [_part(SCHEME.encode("ascii")), _part(seed)]
    parts += [_part((c or "").encode("ascii")) for c in contributions]
    return hashlib.sha256(b"".join(parts)).digest()


class Stream:
    """The deterministic stream of whole numbers for one purpose and number of a deal key."""

    def __init__(self, key: bytes, purpose: bytes, number: int) -> None:
        self._prefix = key + purpose + number.to_bytes(4, "big")
        self._block = 0
        self._buffer = b""

    def _next_word(self) -> int:
        if len(self._buffer) < 4:
            self._buffer += hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
        word, self._buffer = self._buffer[:4], self._buffer[4:]
        return int.from_bytes(word, "big")

    def below(self, n: int) -> int:
        """A whole number from 0 to ``n - 1``, each equally likely (``1 <= n <= 2**32``)."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"a stream draws below 1 to 2**32, not {n!r}")
        limit = 2**32 - 2**32 % n
        while True:
            x = self._next_word()
            if x < limit:
                return x % n


def first_player(key: bytes, players: int) -> int:
    """The seat (from 0) that starts the game."""
    return Stream(key, b"first-player", 0).below(players)


def deal_tiles(state: State, key: bytes) -> list[list[str]]:
    """The factory fill of the round about to be dealt in ``state`` (in the deal phase), drawn
    from the key's stream for that round: one color list per factory, in the order drawn, as a
    deal log entry records it. Pass it to :func:`azul.deal`."""
    if state.phase != "deal":
        raise IllegalMove("the factories are already filled for this round")
    stream = Stream(key, b"deal", state.round + 1)
    bag = [c for c in range(5) for _ in range(state.bag[c])]
    lid = [c for c in range(5) for _ in range(state.lid[c])]
    factories: list[list[str]] = []
    for _factory in state.factories:
        tiles: list[str] = []
        while len(tiles) < TILES_PER_FACTORY:
            if not bag:
                bag, lid = lid, []
                if not bag:
                    break
            tiles.append(COLORS[bag.pop(stream.below(len(bag)))])
        factories.append(tiles)
    return factories


# -- checking a game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What checking a game's deals found: ``ok``, the number of deals checked, and the first
    problem in words (None when there is none)."""

    ok: bool
    deals: int
    problem: str | None = None


def _names(tiles: Iterable[str]) -> str:
    return ", ".join(sorted(tiles, key=COLORS.index)) or "nothing"


def _deal_difference(round_number: int, logged: Any, expected: list[list[str]]) -> str | None:
    """How the logged deal differs from the expected one, naming the first factory; None if it
    does not (the order of a factory's tiles does not matter)."""
    if not isinstance(logged, list) or len(logged) != len(expected):
        return f"round {round_number}'s deal differs: it does not list {len(expected)} factories"
    for number, (got, want) in enumerate(zip(logged, expected, strict=True), 1):
        if not isinstance(got, list) or not all(isinstance(t, str) for t in got):
            return f"round {round_number}'s deal differs: factory {number} is not a list of colors"
        if not all(t in COLORS for t in got) or tally(map(COLORS.index, got)) != tally(
            map(COLORS.index, want)
        ):
            return (
                f"round {round_number}'s deal differs: factory {number} has {_names(got)};"
                f" the seed and contributions give {_names(want)}"
            )
    return None


def verify_game(
    *,
    seed: bytes,
    commitment_hex: str,
    contributions: Sequence[str | None],
    entries: Iterable[LogEntry],
    variant: str,
    first_seat: int,
) -> Verdict:
    """Check a game's deals: that ``seed`` is the one committed to, that the first player and
    every deal in the log (``entries``, replayed for the bag's and lid's contents) follow from
    the seed and the ``contributions`` (one per seat, in seat order)."""
    digest = commitment(seed)
    if digest != commitment_hex.strip().lower():
        mismatch = f"the seed's SHA-256 is {digest}, not the commitment {commitment_hex}"
        return Verdict(False, 0, mismatch)
    for seat, text in enumerate(contributions, 1):
        if text and (problem := contribution_problem(text)) is not None:
            return Verdict(False, 0, f"seat {seat}'s contribution: {problem}")
    key = deal_key(seed, contributions)
    players = len(contributions)
    try:
        state = new_game(players, variant, first_seat)
    except ValueError as exc:
        return Verdict(False, 0, str(exc))
    expected_first = first_player(key, players)
    if first_seat != expected_first:
        return Verdict(
            False,
            0,
            f"the first player differs: the game starts with seat {first_seat + 1};"
            f" the seed and contributions give seat {expected_first + 1}",
        )
    deals = 0
    for number, entry in enumerate(entries):
        if isinstance(entry, Mapping) and entry.get("kind") == "deal" and state.phase == "deal":
            difference = _deal_difference(
                state.round + 1, entry.get("tiles"), deal_tiles(state, key)
            )
            if difference is not None:
                return Verdict(False, deals, difference)
            deals += 1
        try:
            state = apply_entry(state, entry)
        except ValueError as exc:
            return Verdict(False, deals, f"log entry {number}: {exc}")
    if state.phase == "deal":
        return Verdict(False, deals, f"the log ends before round {state.round + 1}'s deal")
    if deals == 0:
        return Verdict(False, 0, "the log has no deal")
    return Verdict(True, deals)


def verify_export(data: Any) -> Verdict:
    """:func:`verify_game` for a game as the site exports it: ``variant``, ``first_player``,
    ``players`` (one per seat), ``entries`` (the log) and ``deals``: ``{"scheme":
    "azul-deals/1", "commitment": hex, "seed": hex, "contributions": [text or null, ...]}``
    (the seed only once the game is over)."""
    if not isinstance(data, Mapping):
        return Verdict(False, 0, "an export is a JSON object")
    deals = data.get("deals")
    if not isinstance(deals, Mapping) or not deals.get("commitment"):
        return Verdict(False, 0, "this game's deals are not verifiable: it has no commitment")
    if deals.get("scheme") != SCHEME:
        return Verdict(False, 0, f"unknown scheme {deals.get('scheme')!r}: expected {SCHEME!r}")
    seed_hex, commitment_hex = deals.get("seed"), deals.get("commitment")
    if not seed_hex:
        return Verdict(False, 0, "the seed is not revealed yet: it is, once the game is over")
    try:
        seed = bytes.fromhex(seed_hex)
    except (TypeError, ValueError):
        return Verdict(False, 0, f"the seed is not hexadecimal: {seed_hex!r}")
    contributions = deals.get("contributions")
    players = data.get("players")
    if (
        not isinstance(contributions, list)
        or not isinstance(players, list)
        or len(contributions) != len(players)
        or not all(c is None or isinstance(c, str) for c in contributions)
    ):
        return Verdict(False, 0, "contributions: one text (or null) per player, in seat order")
    entries, variant = data.get("entries"), data.get("variant")
    first_seat = data.get("first_player")
    if not isinstance(entries, list) or not isinstance(commitment_hex, str):
        return Verdict(False, 0, "entries: the game's log, a list")
    if type(first_seat) is not int or not isinstance(variant, str):
        return Verdict(False, 0, "first_player and variant are required")
    return verify_game(
        seed=seed,
        commitment_hex=commitment_hex,
        contributions=contributions,
        entries=entries,
        variant=variant,
        first_seat=first_seat,
    )
