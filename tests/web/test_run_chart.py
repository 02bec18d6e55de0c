"""The runs-per-day chart's geometry: bars stacked by status, scaled to a round axis."""

from datetime import date, timedelta

from errorkb.verification.overview import DayRuns
from errorkb.web.chart import HEIGHT, axis_top, stacked_bars

STATUSES = [("reproduced", "reproduced"), ("error", "error"), ("running", "running")]
START = date(2026, 11, 1)


def days(*counts: dict) -> list[DayRuns]:
    return [DayRuns(START + timedelta(n), c) for n, c in enumerate(counts)]


def test_the_axis_ends_on_a_round_number_at_or_above_the_busiest_day():
    assert [axis_top(n) for n in (0, 1, 3, 7, 10, 11, 40, 999)] == [1, 1, 5, 10, 10, 20, 50, 1000]


def test_each_day_is_one_bar_its_segments_stacked_in_the_statuses_order():
    chart = stacked_bars(days({"error": 1, "reproduced": 3}, {}, {"running": 10}), STATUSES)
    assert [bar.day for bar in chart.bars] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    first = chart.bars[0]
    assert [(s.status, s.runs) for s in first.segments] == [("reproduced", 3), ("error", 1)]
    # Stacked: each segment sits on the one below, the first on the baseline.
    reproduced, error = first.segments
    assert reproduced.y + reproduced.height == chart.baseline
    assert round(error.y + error.height, 1) == reproduced.y
    assert chart.bars[1].segments == [] and chart.bars[1].total == 0
    assert first.by_status == (3, 1, 0)


def test_heights_are_proportional_to_the_runs():
    chart = stacked_bars(days({"reproduced": 5}, {"reproduced": 10}), STATUSES)
    half, full = (bar.segments[0].height for bar in chart.bars)
    assert full == chart.baseline - chart.ticks[-1].y  # the busiest day reaches the top tick
    assert abs(full - 2 * half) < 0.2


def test_bars_are_apart_and_inside_the_plot():
    chart = stacked_bars(days(*[{"reproduced": 1}] * 30), STATUSES)
    for left, right in zip(chart.bars, chart.bars[1:], strict=False):
        assert left.x + left.width < right.x
    assert chart.bars[0].x >= chart.left and chart.bars[-1].x + chart.bars[-1].width <= chart.right
    assert all(0 < segment.y < HEIGHT for bar in chart.bars for segment in bar.segments)


def test_titles_and_axis_labels_name_the_numbers():
    chart = stacked_bars(days(*[{}] * 29, {"reproduced": 2, "error": 1}), STATUSES)
    assert chart.bars[-1].title == "2026-11-30: 3 runs (2 reproduced, 1 error)"
    assert chart.bars[0].title == "2026-11-01: 0 runs"
    assert [tick.value for tick in chart.ticks] == [0, 2, 5]
    # Every seventh day is labelled, counting back from the last.
    assert [label.text for label in chart.day_labels] == [
        "11-02",
        "11-09",
        "11-16",
        "11-23",
        "11-30",
    ]
