"""The games' pages: thin views over `games.services` (writes), `games.selectors` (reads) and
`games.presenters` (what the pages show).

- `board`: the board page and its partial (`games:detail`, `games:board`);
- `pages`: a new game, the lobby, "My games", the history, a replay;
- `actions`: the forms that act on a game (join, answer, cancel, seats, resign, rematch) and
  the vacation form;
- `urls`: the `games:` URL names.
"""
