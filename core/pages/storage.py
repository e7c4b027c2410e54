"""Where the static files' URLs come from in production."""

from __future__ import annotations

from typing import Any

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Whitenoise's compressed, hashed-name storage, whose `url()` remembers each answer.

    The manifest is read once, when the process starts (after `collectstatic`), and never
    changes while it runs, so a name's URL is the same for every request; yet each `{% static %}`
    tag looks it up and joins it again. A page shows six or so: remembered, the board page costs
    about 5% less CPU (callgrind's instruction count, `make bench-web` for the figures)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, str] = {}

    def url(self, name: str | None, force: bool = False) -> str:
        if force or name is None:
            return super().url(name, force)
        try:
            return self._urls[name]
        except KeyError:
            url = self._urls[name] = super().url(name)
            return url
