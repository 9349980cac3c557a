"""Sizing is closed-form: a 100,000-GPU fabric sizes in well under a millisecond."""

import time

from rules.sizing import allreduce_estimate, size_dragonfly_plus, size_fat_tree, size_rail_optimized


def test_sizing_several_candidates_for_100k_gpus_takes_well_under_a_millisecond_each():
    def candidates():
        size_fat_tree(100_000, radix=144, link_gbps=800)
        size_rail_optimized(12_500, rails=8, radix=144, link_gbps=800)
        size_dragonfly_plus(100_000, radix=64, link_gbps=400)
        size_fat_tree(90_000, radix=64, link_gbps=400, oversubscription=3.0)
        allreduce_estimate(140 * 10**9, 100_000, 8, 480, 47, 3, 5)

    candidates()
    rounds = 200
    start = time.perf_counter()
    for _ in range(rounds):
        candidates()
    per_round_ms = (time.perf_counter() - start) / rounds * 1e3
    assert per_round_ms < 1.0, f"{per_round_ms:.3f} ms for five sizings"
