"""orjson behind the standard library's JSON interface, for the models' JSON fields.

`JSONField(encoder=..., decoder=...)` takes `json.JSONEncoder` and `json.JSONDecoder` classes;
these hand the work to orjson, several times faster on the game's state, which every move reads
and writes. Game data is plain JSON (strings, whole numbers, lists, objects with string keys),
which both libraries write and read alike.
"""

import json
from typing import Any

import orjson


class OrjsonEncoder(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        return orjson.dumps(o).decode()


class OrjsonDecoder(json.JSONDecoder):
    def decode(self, s: str, _w: Any = None) -> Any:
        # orjson's error is a json.JSONDecodeError, as JSONField expects.
        return orjson.loads(s)
