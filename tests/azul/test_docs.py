import doctest

import azul


def test_the_engine_docstring_example_runs():
    """The package docstring opens with a runnable example; it must stay true."""
    failures, tried = doctest.testmod(azul)
    assert tried > 0
    assert failures == 0
