"""What a device can flood the bus with is told in two events: the noise watch and the rate limit, on a clock the
test turns."""

from __future__ import annotations

from controller.sensors.throttle import NoiseWatch, RateLimit


def test_a_link_turns_noisy_at_its_first_fault_and_clean_after_a_quiet_spell():
    watch = NoiseWatch(quiet_s=2.0)
    assert watch.settled(0.0) is False  # a clean link has nothing to tell
    turned = [watch.fault(t / 10) for t in range(30)]  # 3 s of faults, ten a second
    assert turned == [True] + [False] * 29 and watch.faults == 30
    assert watch.settled(4.8) is False  # 1.9 s after the last fault: still noisy
    assert watch.settled(4.95) is True and watch.noisy is False and watch.faults == 0
    assert watch.settled(10.0) is False  # told once
    assert watch.fault(11.0) is True  # noisy again: told again


def test_each_kind_passes_at_its_rate_and_the_rest_is_dropped_counted_and_told_once_calm():
    limit = RateLimit(per_s=10.0, burst=5, quiet_s=1.0)
    passed = [limit.allow("shoe:card_drawn", 0.0) for _ in range(8)]
    assert passed == [True] * 5 + [False] * 3 and limit.flooding("shoe:card_drawn")
    assert limit.allow("gpio:no_more_bets_pressed", 0.0)  # another kind has its own bucket
    assert limit.allow("shoe:card_drawn", 0.1)  # a tenth of a second refills one
    assert limit.floods_ended(0.5) == []  # dropped 0.5 s ago: not calm yet
    assert limit.floods_ended(1.0) == [("shoe:card_drawn", 3)]
    assert limit.floods_ended(5.0) == [] and not limit.flooding("shoe:card_drawn")
    # a steady rate at the limit is never dropped
    assert all(limit.allow("gpio:end_of_deal_pressed", 10.0 + i / 10) for i in range(100))
