import doctest

import games.engine


def test_the_engine_docstring_example_runs():
    """The package docstring opens with a runnable example; it must stay true."""
    failures, tried = doctest.testmod(games.engine)
    assert tried > 0
    assert failures == 0
