"""Move input as clients send it is accepted without running DRF's fields
(`MoveInputSerializer.accepted_as_sent`): never differently from the serializer."""

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from games.serializers import MoveInputSerializer

padding = st.sampled_from(["", " ", "  ", "\t", "\n", "\u00a0"])
moves = st.one_of(
    st.text(max_size=70),
    st.builds(
        lambda before, move, after: before + move + after,
        padding,
        st.sampled_from(
            ["F3 blue 2", "C red floor", "wall 2 4", "x" * 64, "x" * 65, "é 1", "a\x00b", "\ud800"]
        ),
        padding,
    ),
)
plies = st.one_of(
    st.integers(-3, 200), st.integers(), st.sampled_from(["7", "7.0", " 7", "x"]), st.floats()
)
anything = st.one_of(st.none(), st.booleans(), moves, plies, st.lists(st.integers(), max_size=2))
inputs = st.one_of(
    st.fixed_dictionaries({"move": moves, "expected_ply": plies}),
    anything,
    st.fixed_dictionaries({"move": anything, "expected_ply": plies}),
    st.fixed_dictionaries({"move": moves, "expected_ply": plies, "note": anything}),
    st.dictionaries(st.sampled_from(["move", "expected_ply"]), anything),
)


@settings(max_examples=500)
@given(inputs)
@example({"move": "x" * 64, "expected_ply": 0})
@example({"move": "x" * 65, "expected_ply": 0})
@example({"move": "", "expected_ply": 0})
@example({"move": " F3 blue 2", "expected_ply": 3})
@example({"move": "F3 blue 2\n", "expected_ply": 3})
@example({"move": "F3 blue 2", "expected_ply": -1})
@example({"move": "F3 blue 2", "expected_ply": True})
@example({"move": "F3 blue 2", "expected_ply": 3.0})
@example({"move": "F3 blue 2", "expected_ply": "3"})
def test_the_shortcut_accepts_only_what_the_serializer_accepts_and_as_it_would(data):
    shortcut = MoveInputSerializer.accepted_as_sent(data)
    try:
        validated = MoveInputSerializer().run_validation(data)
    except serializers.ValidationError:
        assert shortcut is None
    else:
        assert shortcut is None or shortcut == dict(validated)


def test_moves_as_clients_send_them_take_the_shortcut():
    for move in ("F3 blue 2", "C red floor", "wall 2 4", "F1 black 5"):
        data = {"move": move, "expected_ply": 12}
        assert MoveInputSerializer.accepted_as_sent(data) == data
