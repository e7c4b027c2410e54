"""Check a finished game's deals from its export, with the rules engine alone::

    python -m azul.verify game-export.json

It checks that the seed's SHA-256 is the commitment the game showed from its creation, and that
the first player and every deal in the log follow from the seed and the players' contributions
(:mod:`azul.fairness`). It prints what it found, naming the first deal that does not follow
("round 3's deal differs: factory 2 has ..."), and exits with status 0 when every deal checks,
1 when one does not (or the file cannot be checked). ``-`` reads the export from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .fairness import verify_export


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m azul.verify",
        description="Check that a finished game's deals follow from its committed seed and the"
        " players' contributions.",
    )
    parser.add_argument("export", help="the game's export (JSON), or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.export == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.export, encoding="utf-8") as file:
                data = json.load(file)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.export}: {exc}", file=sys.stderr)
        return 1
    verdict = verify_export(data)
    if not verdict.ok:
        print(f"NOT VERIFIED: {verdict.problem}")
        return 1
    print(
        f"verified: the seed matches its commitment, and the first player and all"
        f" {verdict.deals} deals follow from the seed and the contributions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
