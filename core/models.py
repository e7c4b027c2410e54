"""The one table of the plumbing: the shared counts of the rate limits on account emails, for
while Redis does not answer (`core.outages.cache.RedisCache`)."""

from __future__ import annotations

from django.db import models


class RateLimitEntry(models.Model):
    """One of allauth's rate-limit entries under its cache key: a count (the list of its hits'
    times, allauth's own) or the lock allauth takes around a count. Every web process and node
    reads and writes the same rows, so a limit holds across them with Redis down. Expired rows
    are read as absent and deleted by the sweep (`CoreConfig.sweep`)."""

    key = models.CharField(max_length=250, primary_key=True)
    value = models.JSONField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key
