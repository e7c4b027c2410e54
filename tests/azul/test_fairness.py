"""Deals anyone can check (azul.fairness): the commitment, the deal key, the stream, the deals
drawn from it, and checking a whole game's log (and the ``python -m azul.verify`` command)."""

import copy
import hashlib
import json
import os
import random
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from azul import COLORS, deal, deal_entry, fairness, move_entry, new_game, play, random_move
from azul.verify import main as verify_main

from .builders import crowded_boards, position
from .test_next_round import low_bag_state

SEED = bytes(range(32))
CONTRIBUTIONS = ["alice-contribution", None]
EXAMPLES = int(os.environ.get("AZUL_PROPERTY_EXAMPLES", "20"))


def played(
    seed: bytes, contributions: list, variant: str = "colored", moves_seed: int = 1
) -> tuple[int, list[dict]]:
    """A whole game dealt from ``seed`` and ``contributions`` (random legal moves from
    ``moves_seed``): its first player and its log."""
    key = fairness.deal_key(seed, contributions)
    first = fairness.first_player(key, len(contributions))
    state = new_game(len(contributions), variant, first)
    rng = random.Random(moves_seed)
    entries: list[dict] = []
    while state.phase != "over":
        if state.phase == "deal":
            tiles = fairness.deal_tiles(state, key)
            state = deal(state, tiles=tiles)  # refuses a deal the rules do not allow
            assert state.tile_total() == 100
            entries.append(deal_entry(tiles))
        else:
            player = state.to_move[0]
            move = random_move(state, rng, player)
            entries.append(move_entry(player, move))
            state = play(state, move, player)
        assert state.round <= 60
    return first, entries


def export_of(seed: bytes, contributions: list, variant: str = "colored") -> dict:
    """A game as the site exports it once it is over."""
    first, entries = played(seed, contributions, variant)
    return {
        "format_version": 1,
        "variant": variant,
        "first_player": first,
        "players": [{"name": f"P{i + 1}"} for i in range(len(contributions))],
        "entries": entries,
        "deals": {
            "scheme": fairness.SCHEME,
            "commitment": fairness.commitment(seed),
            "seed": seed.hex(),
            "contributions": contributions,
        },
    }


# -- the scheme, as its docstring writes it ------------------------------------------------------


def test_the_commitment_is_the_seeds_sha256_in_hex():
    assert fairness.commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_the_deal_key_is_the_length_prefixed_parts_hashed():
    def part(data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + data

    expected = hashlib.sha256(
        part(b"azul-deals/1") + part(SEED) + part(b"alice-contribution") + part(b"")
    ).digest()
    assert fairness.deal_key(SEED, CONTRIBUTIONS) == expected


def test_every_contribution_and_its_seat_change_the_key():
    keys = {
        fairness.deal_key(SEED, ["ab", "c"]),
        fairness.deal_key(SEED, ["a", "bc"]),  # the same letters, split otherwise
        fairness.deal_key(SEED, ["c", "ab"]),  # the same contributions, other seats
        fairness.deal_key(SEED, ["ab", "d"]),
        fairness.deal_key(SEED[:-1] + b"\x01", ["ab", "c"]),
    }
    assert len(keys) == 5


def test_the_stream_and_the_deal_are_pinned():
    """Known answers: a change to the stream or the draw would change every game's deals, and
    make every finished game fail its check. They must never change (a new scheme gets a new
    name)."""
    key = fairness.deal_key(SEED, CONTRIBUTIONS)
    assert key.hex() == "a286ba379b6c675bbd400668c0d0b63ad98af4a55bdbffaaf2a74e2df7a96035"
    stream = fairness.Stream(key, b"deal", 1)
    assert [stream.below(100) for _ in range(10)] == [98, 89, 61, 30, 1, 35, 29, 77, 88, 64]
    assert fairness.first_player(key, 4) == 2
    assert fairness.deal_tiles(new_game(2), key) == [
        ["white", "red", "black", "red"],
        ["blue", "black", "red", "blue"],
        ["black", "red", "black", "black"],
        ["black", "yellow", "yellow", "white"],
        ["black", "white", "white", "yellow"],
    ]


def test_the_stream_draws_every_number_below_n_evenly():
    stream = fairness.Stream(b"k" * 32, b"deal", 1)
    counts = Counter(stream.below(3) for _ in range(3000))
    assert set(counts) == {0, 1, 2}
    assert all(900 < n < 1100 for n in counts.values())
    with pytest.raises(ValueError):
        stream.below(0)


def test_each_round_has_its_own_stream():
    key = fairness.deal_key(SEED, CONTRIBUTIONS)
    first = fairness.deal_tiles(new_game(2), key)
    later = new_game(2)
    later.round = 3  # the same bag, dealt for round 4
    assert fairness.deal_tiles(later, key) != first


@pytest.mark.parametrize(
    "text, ok",
    [
        ("a" * 64, True),
        ("0f" * 16, True),
        ("!~", True),
        ("", False),
        ("a" * 65, False),
        ("has space", False),
        ("caf\u00e9", False),
        ("tab\t", False),
        (12, False),
    ],
)
def test_contributions_are_short_printable_ascii(text, ok):
    assert (fairness.contribution_problem(text) is None) == ok


# -- the deals drawn -----------------------------------------------------------------------------


def test_a_deal_that_empties_the_bag_draws_all_of_it_before_the_lid():
    """Rulebook, "Preparing the next round": the bag's 6 tiles, then 14 from the lid."""
    state = low_bag_state()
    tiles = fairness.deal_tiles(state, fairness.deal_key(SEED, CONTRIBUTIONS))
    after = deal(state, tiles=tiles)  # the engine's check: the whole bag is drawn first
    drawn = Counter(t for factory in tiles for t in factory)
    assert sum(drawn.values()) == 20
    assert drawn["blue"] >= 2 and drawn["yellow"] >= 2 and drawn["red"] >= 2
    assert sum(after.to_dict()["lid"].values()) == 0
    assert after.tile_total() == 100


def test_factories_stay_short_when_the_bag_and_lid_run_out():
    state = position(crowded_boards(spare=5), phase="deal")
    tiles = fairness.deal_tiles(state, fairness.deal_key(SEED, CONTRIBUTIONS))
    assert [len(f) for f in tiles] == [4, 1, 0, 0, 0, 0, 0, 0, 0]
    assert deal(state, tiles=tiles).phase == "take"


GAMES = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
contributions = st.one_of(
    st.none(),
    st.text(
        alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=64
    ),
)


@GAMES
@given(
    seed=st.binary(min_size=1, max_size=64),
    seats=st.lists(contributions, min_size=2, max_size=4),
    variant=st.sampled_from(["colored", "gray"]),
    moves_seed=st.integers(0, 2**32 - 1),
)
def test_any_seed_and_contributions_give_legal_deals_the_same_every_time(
    seed, seats, variant, moves_seed
):
    """Every deal is one the rules allow (`azul.deal` checks it) and keeps the 100 tiles; the
    same seed, contributions and moves give the same game; and the game checks."""
    first, entries = played(seed, seats, variant, moves_seed)
    assert 0 <= first < len(seats)
    assert played(seed, seats, variant, moves_seed) == (first, entries)
    verdict = fairness.verify_game(
        seed=seed,
        commitment_hex=fairness.commitment(seed),
        contributions=seats,
        entries=entries,
        variant=variant,
        first_seat=first,
    )
    assert verdict.ok, verdict.problem
    assert verdict.deals == sum(1 for e in entries if e["kind"] == "deal")


# -- checking a game -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def export() -> dict:
    return export_of(SEED, CONTRIBUTIONS)


def test_a_fair_game_checks(export):
    verdict = fairness.verify_export(export)
    assert verdict.ok and verdict.problem is None
    assert verdict.deals == sum(1 for e in export["entries"] if e["kind"] == "deal") > 1


def test_a_tampered_deal_is_named(export):
    tampered = copy.deepcopy(export)
    deals = [e for e in tampered["entries"] if e["kind"] == "deal"]
    factory = deals[1]["tiles"][2]  # round 2, factory 3
    factory[0] = next(c for c in COLORS if c != factory[0])
    verdict = fairness.verify_export(tampered)
    assert not verdict.ok
    assert verdict.deals == 1
    assert verdict.problem.startswith("round 2's deal differs: factory 3 has ")


def test_the_order_of_a_factorys_tiles_does_not_matter(export):
    reordered = copy.deepcopy(export)
    for entry in reordered["entries"]:
        if entry["kind"] == "deal":
            entry["tiles"] = [sorted(f) for f in entry["tiles"]]
    assert fairness.verify_export(reordered).ok


def test_another_seed_does_not_match_the_commitment(export):
    changed = copy.deepcopy(export)
    changed["deals"]["seed"] = bytes(32).hex()
    verdict = fairness.verify_export(changed)
    assert not verdict.ok
    assert verdict.problem.startswith("the seed's SHA-256 is ")


def test_another_seed_with_its_own_commitment_gives_other_deals(export):
    other = b"another seed"
    changed = copy.deepcopy(export)
    changed["deals"].update(seed=other.hex(), commitment=fairness.commitment(other))
    verdict = fairness.verify_export(changed)
    assert not verdict.ok
    assert "differs" in verdict.problem


def test_a_changed_contribution_fails(export):
    changed = copy.deepcopy(export)
    changed["deals"]["contributions"] = ["alice-contributioN", None]
    verdict = fairness.verify_export(changed)
    assert not verdict.ok
    assert "differs" in verdict.problem


def test_exports_that_cannot_be_checked_say_why(export):
    unrevealed = copy.deepcopy(export)
    unrevealed["deals"]["seed"] = None
    assert "not revealed" in fairness.verify_export(unrevealed).problem
    old = {k: v for k, v in export.items() if k != "deals"}
    assert "not verifiable" in fairness.verify_export(old).problem
    short = copy.deepcopy(export)
    short["deals"]["contributions"] = ["alice-contribution"]
    assert "one text" in fairness.verify_export(short).problem
    cut = copy.deepcopy(export)
    cut["entries"] = cut["entries"][:-1]
    cut["entries"].append({"kind": "move", "player": 0, "move": "F9 blue 1"})
    assert not fairness.verify_export(cut).ok


def test_the_command_checks_an_export_file(export, tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    assert verify_main([str(path)]) == 0
    assert capsys.readouterr().out.startswith("verified:")

    tampered = copy.deepcopy(export)
    factory = tampered["entries"][0]["tiles"][1]
    factory[-1] = next(c for c in COLORS if c != factory[-1])
    path.write_text(json.dumps(tampered))
    assert verify_main([str(path)]) == 1
    assert "NOT VERIFIED: round 1's deal differs: factory 2 has" in capsys.readouterr().out

    assert verify_main([str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_the_command_runs_as_a_module(export, tmp_path):
    """`python -m azul.verify`, as the README writes it, from the engine alone."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    done = subprocess.run(
        [sys.executable, "-m", "azul.verify", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("verified:")
