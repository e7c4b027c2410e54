"""How games are shown: one place decides how a player, a seat, a move row, a deal and a time
read, for the pages, the replay, the emails and the export alike.

- `names`: a player and a seat (`player_name`, `seat_name`, `computer_name`);
- `moves`: a deal's text and the move list's rows (`deal_text`, `move_rows`);
- `times`: a time in the viewer's zone (`user_zone`, `local_time_text`, `deadline_text`);
- `board`, `game`: the board and a game's view-models, built from these.

Selectors read (querysets, models, typed records); presenters make the text.
"""
