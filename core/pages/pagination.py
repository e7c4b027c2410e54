"""Pages whose count is kept in the cache (`CachedCountPaginator`).

A paginator counts every row its query selects, on every page it serves. The history of
finished games counts them all: 14-38 ms of a page's 55 ms at 100,000 games (`make
bench-history`), growing with the site, for a number that changes only when a game finishes. The
count is kept under a key that its caller makes change with the data (`games.selectors.history`).
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.utils.functional import cached_property

from core.outages.cache import cached


class CachedCountPaginator(Paginator):
    """A `Paginator` whose count is read from the cache under `count_key` for `count_seconds`,
    counted (and kept) when it is not there or the cache fails (`core.outages.cache.cached`)."""

    def __init__(
        self,
        object_list: Any,
        per_page: int,
        *,
        count_key: str,
        count_seconds: float,
        **kwargs: Any,
    ) -> None:
        super().__init__(object_list, per_page, **kwargs)
        self.count_key = count_key
        self.count_seconds = count_seconds

    @cached_property
    def count(self) -> int:
        return cached(self.count_key, self._counted, self.count_seconds)

    def _counted(self) -> int:
        """The count as Django's `Paginator` makes it (the query's `count()`)."""
        return super().count
