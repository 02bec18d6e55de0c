"""The geometry of the runs-per-day chart: stacked bars, drawn as inline SVG by a template.

Plain numbers in, rectangles and labels out, so it is tested without rendering; the
template only writes them down (no script, no style attribute: the CSP stays strict).
"""

import math
from dataclasses import dataclass, field

from errorkb.verification.overview import DayRuns

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 8, 10, 26  # room for the axis labels
BAR_SHARE = 0.7  # of each day's slot; the rest is the gap between bars
X_LABEL_EVERY = 7  # days between date labels


@dataclass(frozen=True)
class Segment:
    status: str
    label: str
    runs: int
    y: float
    height: float


@dataclass(frozen=True)
class Bar:
    day: str  # ISO date
    x: float
    width: float
    total: int
    segments: list[Segment]
    by_status: tuple[int, ...]  # the runs of each status, in the chart's order (its table)

    @property
    def title(self) -> str:
        parts = ", ".join(f"{s.runs} {s.label}" for s in self.segments)
        return f"{self.day}: {self.total} run{'s' if self.total != 1 else ''}" + (
            f" ({parts})" if parts else ""
        )


@dataclass(frozen=True)
class Tick:
    value: int
    y: float


@dataclass(frozen=True)
class DayLabel:
    text: str
    x: float


@dataclass
class Chart:
    width: int
    height: int
    bars: list[Bar]
    ticks: list[Tick]
    day_labels: list[DayLabel]
    left: int = LEFT
    right: int = WIDTH - RIGHT
    baseline: float = HEIGHT - BOTTOM
    statuses: list[tuple[str, str]] = field(default_factory=list)  # the legend

    @property
    def total(self) -> int:
        return sum(bar.total for bar in self.bars)

    @property
    def first_day(self) -> str:
        return self.bars[0].day

    @property
    def last_day(self) -> str:
        return self.bars[-1].day

    @property
    def busy_bars(self) -> list[Bar]:
        """The days with runs: the rows of the chart's table."""
        return [bar for bar in self.bars if bar.total]


def axis_top(most: int) -> int:
    """The y axis's top: a round number at or above the busiest day (1, 2, 5 × 10ⁿ)."""
    if most <= 0:
        return 1
    power = 10 ** math.floor(math.log10(most))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= most)


def stacked_bars(days: list[DayRuns], statuses: list[tuple[str, str]]) -> Chart:
    """One bar per day, its runs stacked by status in `statuses` order (value, label)."""
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    baseline = TOP + plot_height
    top = axis_top(max((day.total for day in days), default=0))
    slot = plot_width / max(len(days), 1)
    bars = []
    for index, day in enumerate(days):
        x = LEFT + index * slot + slot * (1 - BAR_SHARE) / 2
        segments, y = [], baseline
        for status, label in statuses:
            runs = day.counts.get(status, 0)
            if runs:
                height = runs / top * plot_height
                y -= height
                segments.append(Segment(status, label, runs, round(y, 1), round(height, 1)))
        by_status = tuple(day.counts.get(status, 0) for status, _ in statuses)
        bar_width = round(slot * BAR_SHARE, 1)
        bars.append(
            Bar(day.day.isoformat(), round(x, 1), bar_width, day.total, segments, by_status)
        )
    ticks = [
        Tick(value, round(baseline - value / top * plot_height, 1)) for value in (0, top // 2, top)
    ]
    labels = [
        DayLabel(day.day.strftime("%m-%d"), round(LEFT + (index + 0.5) * slot, 1))
        for index, day in enumerate(days)
        if (len(days) - 1 - index) % X_LABEL_EVERY == 0
    ]
    ticks = [tick for n, tick in enumerate(ticks) if n == 0 or tick.value != ticks[n - 1].value]
    return Chart(WIDTH, HEIGHT, bars, ticks, labels, baseline=baseline, statuses=statuses)
