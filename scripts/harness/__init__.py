"""The scripts' load-and-fault harness, shared by the soak (scripts/soak.py), the abuse run
(scripts/abuse.py) and the benchmarks (scripts/bench_*.py), each a short script on it:

- `stack`: the site's environments, its database and Redis, and its processes (gunicorn, the
  live process, Celery workers, the sweeps, a Redis of its own), each in a process group of its
  own, restartable, stopped together;
- `sinks`: what stands for the outside world: an SMTP sink, and a push service and webhook
  receiver (`ReachSink`) that keep every message that reaches them;
- `clients`: HTTP clients (a lean keep-alive one for load, one with a player's token, asyncio);
- `players`: the scripts' players, their sessions, tokens and games, and what they do: the soak's
  players, the abuse run's innocent player (the victim) and its measures, open boards and the
  players who move in their games;
- `seeds`: many players and games at once, for the benchmarks;
- `floods`: concurrent clients (requests and moves), the CPU the servers spend on them, and a
  hostile account's floods through the API, tallied;
- `faults`: killing and hanging the stack's parts in turn (the soak's schedule), when each was
  down, and the failed requests against those windows;
- `checks`: what must hold after a run: every move against the logs, the logs against the engine,
  the stack settled, each notification's deliveries per channel (nothing lost, nothing twice),
  and a hostile account's limits;
- `queries`: the database's side of a benchmark: its queries by part, their plans;
- `report`: figures beside their goals, in the scripts' printed format.

A script in scripts/ imports it as `harness` (Python puts a script's folder on sys.path); the
project's root goes on sys.path here, for Django's settings and the apps.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
