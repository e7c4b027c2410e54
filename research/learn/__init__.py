"""The learned evaluator's tools (issue #36): ``selfplay`` makes training data from games the
computer players play, ``train`` fits the evaluator's weights (numpy only), ``bench`` measures
its inference cost and ``leaves`` compares it with the rollouts at a search's leaves;
``roundend`` plays round-end data and fits the search's round-end tables to it, and
``residual`` fits a small network's correction to the tables' margin between two players.
The evaluators the site can load are :mod:`research.learn.evaluator` and the tables of
:mod:`azul.ai.evaluation`; see research/BOTS.md, "Learned evaluator (in progress)"."""
