"""The engine's reasons for refusing a move reach players in their language.

The engine raises English templates with their values (`EngineError.template`, `.params`);
`games/presenters/engine_words.py` lists every template for `makemessages` and translates them.
These tests read the engine's source, so that a new `raise IllegalMove(...)` that is not listed
fails here, not in front of a Korean player.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest
from django.utils import translation

import azul
from azul import IllegalMove, InvalidNotation
from games.presenters import engine_words
from games.presenters.engine_words import engine_error_text

ENGINE = Path(azul.__file__).parent
ERRORS = {"IllegalMove", "InvalidNotation"}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _raise_sites():
    """(file:line, call) for every IllegalMove(...) / InvalidNotation(...) in the azul."""
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERRORS:
                yield f"{path.name}:{node.lineno}", node


def _constant(node: ast.AST) -> str | None:
    """The string a node spells out (implicit concatenation is one constant); else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


SITES = list(_raise_sites())


def test_the_engine_raises_its_errors():
    assert len(SITES) > 30


@pytest.mark.parametrize("where,call", SITES, ids=[where for where, _ in SITES])
def test_every_raised_template_is_listed_with_the_values_it_names(where, call):
    template = _constant(call.args[0]) if call.args else None
    assert template is not None, f"{where}: the message must be a plain string template"
    assert template in engine_words.TEMPLATES, (
        f"{where}: {template!r} is not in games/presenters/engine_words.py TEMPLATES"
    )
    keywords = {k.arg for k in call.keywords}
    assert set(PLACEHOLDER.findall(template)) == keywords, f"{where}: placeholders vs values"
    for keyword in call.keywords:
        if keyword.arg in engine_words.PHRASE_KEYS and _constant(keyword.value) is not None:
            assert _constant(keyword.value) in engine_words.PHRASES, where


def test_every_phrase_the_notation_passes_is_listed():
    """The `what=` and `example=` values the notation's errors are given (notation.py)."""
    tree = ast.parse((ENGINE / "notation.py").read_text())
    phrases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in engine_words.PHRASE_KEYS and _constant(keyword.value):
                    phrases.add(_constant(keyword.value))
        names = {getattr(t, "id", None) for t in getattr(node, "targets", [])}
        value = _constant(getattr(node, "value", None))
        if isinstance(node, ast.Assign) and names & engine_words.PHRASE_KEYS and value:
            phrases.add(value)
    assert phrases
    assert phrases <= set(engine_words.PHRASES)


def test_the_listed_words_cover_the_engine():
    assert len(engine_words.COLOR_NAMES) == len(azul.COLORS)
    assert {str(c) for c in engine_words.COLOR_NAMES} == set(azul.COLORS)
    from azul.state import PHASES

    assert {str(p) for p in engine_words.PHASE_NAMES} == set(PHASES)


def test_str_is_the_english_reason():
    with pytest.raises(IllegalMove) as caught:
        azul.play(_dealt_game(), _missing_colour_move(), 0)
    exc = caught.value
    assert str(exc) == exc.template % exc.params
    assert "%(" not in str(exc)


def _dealt_game() -> azul.State:
    return azul.deal(azul.new_game(2), rng=random.Random(7))


def _missing_colour_move() -> str:
    """A take of a colour that factory 1 does not hold."""
    state = _dealt_game()
    held = {azul.COLORS[c] for c, n in enumerate(state.factories[0]) if n}
    colour = next(c for c in azul.COLORS if c not in held)
    return f"F1 {colour} 2"


def test_an_illegal_move_in_korean(settings):
    state = _dealt_game()
    move = _missing_colour_move()
    with pytest.raises(IllegalMove) as caught:
        azul.play(state, move, 0)
    colour = move.split()[1]
    with translation.override("ko"):
        text = engine_error_text(caught.value)
        korean_colour = engine_words.color_name(colour)
    assert text == f"1번 공장에 {korean_colour} 타일이 없습니다"
    with translation.override("en"):
        assert engine_error_text(caught.value) == str(caught.value)


def test_a_reason_within_a_reason_is_translated_too():
    log = [{"kind": "deal", "tiles": [["purple"] * 4] * 5}]
    with pytest.raises(IllegalMove) as caught:
        azul.replay(log, players=2)
    assert str(caught.value).startswith("log entry 0: factory 1: unknown color 'purple'")
    with translation.override("ko"):
        text = engine_error_text(caught.value)
    assert text.startswith("기록 항목 0: 1번 공장: 알 수 없는 색깔 'purple'"), text


def test_notation_errors_in_korean():
    with pytest.raises(InvalidNotation) as caught:
        azul.parse_move("F3 blue 9")
    with translation.override("ko"):
        text = engine_error_text(caught.value)
    assert text == (
        "패턴 라인 번호는 1~5 사이여야 합니다 (입력: 9)"
        " (수는 'F3 blue 2'나 'C red floor'처럼 쓰세요)"
    )


@pytest.mark.parametrize("template", engine_words.TEMPLATES)
def test_every_template_formats_in_korean(template):
    names = PLACEHOLDER.findall(template)
    exc = IllegalMove(template, **{name: "x" for name in names})
    with translation.override("ko"):
        text = engine_error_text(exc)
    assert re.search("[가-힣]", text), (template, text)


def test_other_errors_pass_through():
    assert engine_error_text(ValueError("plain")) == "plain"
