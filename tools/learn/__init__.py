"""The learned evaluator's tools (issue #36, first step): ``selfplay`` makes training data from
games the computer players play, ``train`` fits the evaluator's weights (numpy only), ``bench``
measures its inference cost and ``leaves`` compares it with the rollouts at a search's leaves.
The evaluator itself, which the site can load, is :mod:`azul.ai.learned`; see tools/BOTS.md,
"Learned evaluator (in progress)"."""
