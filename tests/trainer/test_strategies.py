"""Checkpointing strategies follow burn's semantics."""

from trainer.checkpoint import ComposedStrategy, Delete, KeepLastStrategy, MetricStrategy, Save


def _run(strategy, epochs):
    return {epoch: strategy.checkpointing(epoch) for epoch in range(1, epochs + 1)}


def _metric(losses):
    """A metric strategy over per-epoch losses, revealed one epoch at a time."""
    seen = {}

    def best_epoch():
        return min(seen, key=lambda e: (seen[e], e)) if seen else None

    strategy = MetricStrategy(best_epoch)
    original = strategy.checkpointing

    def checkpointing(epoch):
        seen[epoch] = losses[epoch - 1]
        return original(epoch)

    strategy.checkpointing = checkpointing
    return strategy


def test_it_keeps_the_last_two_and_deletes_epoch_1_at_epoch_3():
    actions = _run(KeepLastStrategy(2), 4)
    assert actions[1] == [Save()]
    assert actions[2] == [Save()]
    assert actions[3] == [Save(), Delete(1)]
    assert actions[4] == [Save(), Delete(2)]


def test_it_saves_only_new_bests_with_the_metric_strategy():
    actions = _run(_metric([3.0, 2.0, 2.5, 1.0]), 4)
    assert actions[1] == [Save()]
    assert actions[2] == [Delete(1), Save()]
    assert actions[3] == []
    assert actions[4] == [Delete(2), Save()]


def test_it_composes_a_falling_loss_like_keep_last():
    composed = ComposedStrategy([KeepLastStrategy(2), _metric([4.0, 3.0, 2.0, 1.0])])
    actions = _run(composed, 4)
    assert actions == {
        1: [Save()],
        2: [Save()],
        3: [Save(), Delete(1)],
        4: [Save(), Delete(2)],
    }


def test_it_keeps_the_best_epoch_until_every_strategy_lets_it_go():
    composed = ComposedStrategy([KeepLastStrategy(2), _metric([1.0, 2.0, 3.0, 4.0, 0.5])])
    actions = _run(composed, 5)
    assert actions[3] == [Save()]  # keep-last lets 1 go; the metric still holds it
    assert actions[4] == [Save(), Delete(2)]  # the metric never wanted 2
    assert actions[5] == [Save(), Delete(3), Delete(1)]  # the best moved: 1 is free


def test_it_puts_save_before_delete():
    composed = ComposedStrategy([KeepLastStrategy(1), _metric([3.0, 2.0])])
    assert _run(composed, 2)[2] == [Save(), Delete(1)]
