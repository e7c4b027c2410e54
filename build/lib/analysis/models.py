"""Post-game analyses: for a finished game, how much each player's moves lost against the best
move the computer found, computed once by a worker and kept."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.jsoncodec import OrjsonDecoder, OrjsonEncoder
from games.models import Game


class Analysis(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("In progress")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    # One analysis per game, whoever asked first: a second request finds this row.
    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="analysis"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The search's time per position, in seconds, and positions judged: what the figures mean.
    seconds_per_move = models.FloatField(default=0)
    # One item per person's move judged, in log order: {"ply", "position", "round", "played",
    # "best", "loss", "rollouts"} (`analysis.services`; "loss" in points of final score margin,
    # >= 0), and among them one per move the server made for a person, not judged:
    # {"ply", "position", "round", "played", "by_server": true}.
    moves = models.JSONField(default=list, encoder=OrjsonEncoder, decoder=OrjsonDecoder)

    class Meta:
        verbose_name_plural = "analyses"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "done", "failed"]),
                name="analysis_status_choice",
            ),
        ]

    def __str__(self) -> str:
        return f"Analysis of {self.game_id} ({self.status})"
