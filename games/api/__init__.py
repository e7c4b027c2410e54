"""The game API, under /api/ (`games_api:...`): thin DRF views that validate input, call one
service or selector, and render.

Errors come from `games.errors` and are rendered by `core.api.responses.api_exception_handler` as
`{"detail": ..., "code": ...}` with the error's status.

Responses are the plain dicts that `games.presenters` builds; the output serializers
(`games.serializers`) describe them for the OpenAPI schema (a test keeps the two in step) but
are not run on each response: building DRF's field tree costs more than the rest of a move
submission.

- `base`: what every view shares (the errors, the 409's `current_ply`, the game in an answer);
- `games`: my games and the history, create, read (and wait), legal moves, log, move;
- `seats`: the lobby, joining, invitations, cancelling, giving or opening a seat;
- `endings`: resign, rematch;
- `record`: export and import;
- `urls`: the `games_api:` URL names.
"""
