"""A league's division played out at once, for the tests and the league benchmark: each table's
result written on its seats (no moves), so that the division ends in the order given. What a
rollover reads is the results; how the games reach them is the games' own path, tested with
them."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from events import services
from events.models import Event, EventTable
from games.models import Game, Seat


def finish_division(event: Event, order: Sequence[int]) -> Event:
    """Every table of `event` finished, the player earlier in `order` (user ids) placed first at
    each; then the event moves on as when its last game ends (`services.event_advance`)."""
    rank = {user_id: i for i, user_id in enumerate(order)}
    tables = list(EventTable.objects.filter(event=event))
    seats = list(Seat.objects.filter(game_id__in=[t.game_id for t in tables]))
    by_game: dict[object, list[Seat]] = {}
    for seat in seats:
        by_game.setdefault(seat.game_id, []).append(seat)
    for table_seats in by_game.values():
        table_seats.sort(key=lambda s: rank[s.user_id])
        for place, seat in enumerate(table_seats, 1):
            seat.place = place
            seat.final_score = 100 - 10 * place
    Seat.objects.bulk_update(seats, ["place", "final_score"])
    Game.objects.filter(pk__in=[t.game_id for t in tables]).update(
        status=Game.Status.FINISHED, finished_at=timezone.now(), turn_deadline=None
    )
    return services.event_advance(event_id=event.pk)
