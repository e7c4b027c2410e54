"""A game's record: its log replayed, exported and imported (beside the game in play, as
lichess keeps its game/ beside its round/).

- `summary`: the log replayed once per game and ply, cached: the board at any ply, each round's
  wall tiling and the points each move earned;
- `replay`: who may replay a game, which point a link asks for, the replay page's model;
- `chart`: the replay's score chart, as SVG coordinates;
- `export`: a game as a JSON file the engine alone can rebuild;
- `study_import`: such a file checked entry by entry and written as a study game;
- `serializers`: the export format described for the API's schema.
"""
