"""Post-game analysis: asking for one (`analysis_request`) and computing it (`analysis_run`).

An analysis is computed once per game, on a worker queue of its own (`ANALYSIS_QUEUE`, which the
workers that play live games' computer moves do not take), and kept: every later request, by
any player of the game, reads the stored result.

For each move a person made (computer seats' moves are not judged, nor the moves the server made
for a person: at a timeout, and for a seat after it was resigned or taken over), the position
before it is given to the computer's search (`azul.ai.judge.judge_position`) with a fixed time;
the move's *loss* is how many points of final score margin (the player's final score minus the
best opponent's, as the search expects it) it gave up against the best move the search found,
never negative. The moves the server made for a person are listed as such, without a loss. The
time per position is the game's budget shared among its positions, within a floor and a
ceiling, so a long game costs a bounded time.

Fair play: a game whose people made fewer than `ANALYSIS_MIN_PERSON_MOVES` moves themselves is not
analysed (`TooFewMoves`, 422), and a player has at most `ANALYSIS_MAX_PENDING_PER_PLAYER` analyses
pending at once (`TooManyPending`, 429), so that one player cannot fill the analysis queue.
"""

from __future__ import annotations

import zlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import azul
from accounts.locking import lock_player
from accounts.models import User
from analysis import selectors
from analysis.models import Analysis
from azul.ai.judge import judge_position
from core.tasks import send, send_on_commit
from games.errors import GameNotFound, InvalidAction
from games.models import Game, Seat
from games.selectors import log_entries, parse_game_id, server_moves

ANALYSE_TASK = "analysis.tasks.analyse_game"
ANALYSIS_QUEUE = "analysis"
"""The queue the analysis task is routed to (`CELERY_TASK_ROUTES`), served by its own worker."""

RESEND_AFTER_SECONDS = 30 * 60
"""A pending analysis older than this is sent again by the sweep: its task was lost (the broker was
down when it was asked for) or its worker died; the task is safe to run twice."""


class TooFewMoves(InvalidAction):
    status_code = 422
    code = "too_few_moves"


class TooManyPending(InvalidAction):
    status_code = 429
    code = "too_many_analyses"


PERSON, SERVER, COMPUTER = "person", "server", "computer"
"""Who made a move (`move_makers`): a person, the server for a person, or a computer seat."""


def people_moves(game: Game, entries: list[dict[str, Any]]) -> list[int]:
    """The plies of the moves the game's people made themselves, in log order (`move_makers`)."""
    return [ply for ply, maker in move_makers(game, entries).items() if maker == PERSON]


def move_makers(game: Game, entries: list[dict[str, Any]]) -> dict[int, str]:
    """Who made each move of the log (by ply, in log order): `PERSON` for a move a person made
    themselves; `SERVER` for a move the server made for a person (a move at a timeout; every
    move of a seat after its player resigned or the computer took it over at their third
    timeout; and every move once no person was left to play, when the game was played out at
    once: `games.services.endings.result_settled`); `COMPUTER` for a computer seat's."""
    seats = list(game.seats.all())
    people = {s.position for s in seats if s.kind == Seat.Kind.HUMAN and s.user_id}
    records = [{"data": entry, "created_at": entry.get("created_at")} for entry in entries]
    by_server = server_moves(seats=seats, entries=records)
    makers: dict[int, str] = {}
    for ply, entry in enumerate(entries):
        if entry.get("kind") != "move":
            continue
        if entry.get("player") not in people:
            makers[ply] = COMPUTER
        else:
            makers[ply] = SERVER if ply in by_server else PERSON
    return makers


def _log(game: Game) -> list[dict[str, Any]]:
    """The game's log entries' data, each with when it was written."""
    return [
        {**record["data"], "created_at": record["created_at"]}
        for record in log_entries(game=game, up_to_ply=game.ply)
    ]


def _may_request(game: Game, user: User) -> None:
    if game.status != Game.Status.FINISHED or game.is_study:
        raise InvalidAction(
            _("Only a finished game can be analyzed; this one is %(status)s.")
            % {"status": game.get_status_display().lower()},
            status_code=409,
        )
    if not any(seat.user_id == user.pk for seat in game.seats.all()):
        raise InvalidAction(_("Only the game's players can ask for its analysis."), status_code=403)
    made = len(people_moves(game, _log(game)))
    if made < settings.ANALYSIS_MIN_PERSON_MOVES:
        raise TooFewMoves(
            _(
                "This game is too short to analyze: its players made %(made)s moves themselves,"
                " and an analysis needs at least %(least)s (moves made by the server at a timeout"
                " or by the computer for a resigned player do not count)."
            )
            % {"made": made, "least": settings.ANALYSIS_MIN_PERSON_MOVES}
        )


def _pending_room(user: User) -> None:
    """Refuse a new analysis to a player who has `ANALYSIS_MAX_PENDING_PER_PLAYER` pending; the
    caller holds the lock on the player's row, so that two requests at once count each other."""
    most = settings.ANALYSIS_MAX_PENDING_PER_PLAYER
    pending = Analysis.objects.filter(requested_by=user, status=Analysis.Status.PENDING).count()
    if pending >= most:
        raise TooManyPending(
            _(
                "You have %(count)s analyses in progress, the most one player may have at once:"
                " ask again once one of them is done."
            )
            % {"count": pending}
        )


def analysis_request(*, game_id: Any, user: User) -> Analysis:
    """Ask for the analysis of a finished game (a player of it only). Idempotent: the first
    request creates it and queues the work; later ones return it as it stands (a failed one is
    queued again)."""
    with transaction.atomic():
        try:
            # The seats read once, for both checks (`_may_request`, `people_moves`).
            game = (
                Game.objects.select_for_update()
                .prefetch_related("seats")
                .get(pk=parse_game_id(game_id))
            )
        except Game.DoesNotExist:
            raise GameNotFound() from None
        _may_request(game, user)
        analysis = Analysis.objects.filter(game=game).first()
        if analysis is not None and analysis.status != Analysis.Status.FAILED:
            return analysis
        # One request of a player's at a time counts their pending analyses.
        lock_player(user.pk)
        _pending_room(user)
        if analysis is None:
            analysis = Analysis.objects.create(game=game, requested_by=user)
        else:
            analysis.status = Analysis.Status.PENDING
            analysis.requested_by = user
            analysis.save(update_fields=["status", "requested_by"])
        transaction.on_commit(lambda: selectors.analysis_forget(game_id=game.pk))
        send_on_commit(ANALYSE_TASK, str(game.pk))
    return analysis


def _positions(
    game: Game, entries: list[dict[str, Any]]
) -> tuple[list[tuple[int, azul.State, dict[str, Any]]], list[tuple[int, int, dict[str, Any]]]]:
    """(ply, state before, entry) for each move a person made themselves with a choice, and
    (ply, round, entry) for each move the server made for a person (`move_makers`), in log
    order."""
    makers = move_makers(game, entries)
    assert game.first_player is not None  # drawn when the game started, and it has finished
    state = azul.new_game(game.num_players, game.variant, game.first_player)
    positions = []
    by_server = []
    for ply, entry in enumerate(entries):
        maker = makers.get(ply)
        if maker == PERSON and len(azul.legal_moves(state, entry["player"])) > 1:
            positions.append((ply, state, entry))
        elif maker == SERVER:
            by_server.append((ply, state.round, entry))
        state = azul.apply_entry(state, entry)
    return positions, by_server


def seconds_per_position(count: int) -> float:
    """The search's time for each of `count` positions: the game's budget shared among them,
    within the settings' floor and ceiling."""
    if count == 0:
        return 0.0
    share = settings.ANALYSIS_SECONDS_PER_GAME / count
    return max(
        settings.ANALYSIS_MIN_SECONDS_PER_MOVE, min(settings.ANALYSIS_MAX_SECONDS_PER_MOVE, share)
    )


def judged_moves(game: Game) -> tuple[list[dict[str, Any]], float]:
    """Judge every move a person made in `game`, and list the moves the server made for a
    person (`by_server`, not judged), in log order (pure computation; nothing written)."""
    entries = _log(game)
    positions, by_server = _positions(game, entries)
    seconds = seconds_per_position(len(positions))
    moves = []
    for ply, state, entry in positions:
        played = azul.parse_move(entry["move"])
        # Seeded by game and position, so that running the analysis again judges the same way
        # (up to the clock: the search stops at its time).
        seed = zlib.crc32(f"{game.pk}:{state.round}:{entry['player']}:{entry['move']}".encode())
        judgement = judge_position(state, entry["player"], played, seconds=seconds, seed=seed)
        moves.append(
            {
                "ply": ply,
                "position": entry["player"],
                "round": state.round,
                "played": str(played),
                "best": str(judgement.best[0]),
                "loss": round(judgement.loss(played), 1),
                "rollouts": judgement.rollouts,
            }
        )
    for ply, round_number, entry in by_server:
        moves.append(
            {
                "ply": ply,
                "position": entry["player"],
                "round": round_number,
                "played": str(azul.parse_move(entry["move"])),
                "by_server": True,
            }
        )
    moves.sort(key=lambda move: move["ply"])
    return moves, seconds


def analysis_run(*, game_id: Any) -> Analysis | None:
    """Compute a pending analysis and store it; nothing to do (None) if it is done already or
    was never asked for. Safe to run twice: the result is written only over a pending row."""
    analysis = Analysis.objects.filter(pk=parse_game_id(game_id)).select_related("game").first()
    if analysis is None or analysis.status == Analysis.Status.DONE:
        return None
    try:
        moves, seconds = judged_moves(analysis.game)
    except Exception:
        Analysis.objects.filter(pk=analysis.pk, status=Analysis.Status.PENDING).update(
            status=Analysis.Status.FAILED, finished_at=timezone.now()
        )
        selectors.analysis_forget(game_id=analysis.pk)
        raise
    Analysis.objects.filter(pk=analysis.pk).exclude(status=Analysis.Status.DONE).update(
        status=Analysis.Status.DONE,
        moves=moves,
        seconds_per_move=seconds,
        finished_at=timezone.now(),
    )
    selectors.analysis_forget(game_id=analysis.pk)
    analysis.refresh_from_db()
    return analysis


def analyses_resend() -> int:
    """Send again the analyses pending for longer than `RESEND_AFTER_SECONDS`; how many."""
    cutoff = timezone.now() - timedelta(seconds=RESEND_AFTER_SECONDS)
    stale = list(
        Analysis.objects.filter(
            status=Analysis.Status.PENDING, requested_at__lt=cutoff
        ).values_list("game_id", flat=True)[:100]
    )
    for game_id in stale:
        send(ANALYSE_TASK, [str(game_id)])
    return len(stale)


def analyses_forget_requester(*, user_id: Any) -> int:
    """The player deleted their account: the analyses they asked for stay (they are about the
    game, which others played too), no longer saying who asked. Returns how many."""
    return Analysis.objects.filter(requested_by_id=user_id).update(requested_by=None)
