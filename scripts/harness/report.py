"""Reports: the figures beside their goals, in the scripts' printed format."""

from __future__ import annotations

from collections.abc import Sequence


def say(message: str = "") -> None:
    print(message, flush=True)


def percentile(values: Sequence[float], q: float, empty: float = float("nan")) -> float:
    """The value at `q` (0.5: the median; 1.0: the worst) of `values`, as the scripts have always
    taken it (the element at `q` times their number); `empty` when there are none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else empty


def verdict(ok: bool) -> str:
    """A benchmark's goal: met or not."""
    return "ok" if ok else "MISSED"


def goal(what: str, met: bool) -> str:
    """`<what>: ok` or `<what>: MISSED`, a benchmark's line of a goal (what names the figure and
    its target)."""
    return f"{what}: {verdict(met)}"


def table_header(header: str) -> None:
    """A table's header line, underlined."""
    say(header)
    say("-" * len(header))


def seconds(value: float) -> str:
    """A duration in seconds, "none" when it never came, "-" when there was no sample."""
    if value != value:
        return "-"
    return "none" if value == float("inf") else f"{value:.2f} s"


def within(seconds: float) -> str:
    """A duration, roughly: how long an answer took."""
    edges = (1, 5, 30, 55)
    if seconds >= edges[-1]:
        return f"after {edges[-1]} s or more"
    low = max((e for e in edges if e <= seconds), default=0)
    return f"in {low}-{min(e for e in edges if e > seconds)} s"


def targets_table(
    rows: list[tuple[str, float, float, float | None]], columns: tuple[str, str]
) -> bool:
    """A figure per row, as measured in two phases (`columns`: their names), beside its target
    (a duration it must stay under in both, or None: reported only): whether all were met."""
    first, second = columns
    say(f"  {'figure':<38} {first:>8} {second:>8}  {'target':<10} result")
    passed = True
    for name, calm, busy, target in rows:
        if target is not None:
            ok = all(v == v and v < target for v in (calm, busy))
            passed &= ok
            result, wanted = ("pass" if ok else "FAIL"), f"< {target:g} s"
        else:
            result, wanted = "(report)", "-"
        say(f"  {name:<38} {seconds(calm):>8} {seconds(busy):>8}  {wanted:<10} {result}")
    return passed
