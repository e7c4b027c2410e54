"""The computer players: :mod:`.bots` (the levels and :func:`~.bots.choose_move`), the tree
search behind ``medium``, ``strong`` and ``master`` (:mod:`.search`, with :mod:`.tree` and
:mod:`.policy`), the one board evaluator they share (:mod:`.evaluation`), and the post-game
judge (:mod:`.judge`). Pure engine code, like the rest of :mod:`azul`."""
