"""The benches' statistics (bench/stats.py) and the tableau-by-tableau outcomes they compare."""
import math

import pytest
from stats import paired, wilson


def test_wilson_interval_matches_its_textbook_values():
    lo, hi = wilson(81, 263)  # Wilson's own example in Newcombe (1998): 0.2553 to 0.3662
    assert lo == pytest.approx(0.2553, abs=5e-4) and hi == pytest.approx(0.3662, abs=5e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)
    # 71.9 % of 218 tableaux: the interval is about ±6 points wide
    lo, hi = wilson(157, 218)
    assert 0.65 < lo < 0.66 and 0.77 < hi < 0.78


def test_paired_counts_flips_and_gives_mcnemars_exact_p():
    before = {"a": True, "b": True, "c": False, "d": False, "e": True, "only-before": True}
    after = {"a": True, "b": False, "c": True, "d": True, "e": True, "only-after": False}
    got = paired(before, after)
    assert got["items"] == 5 and got["gained"] == 2 and got["lost"] == 1
    assert got["p_value"] == 1.0  # 1 of 3 discordant: 2 × P(X ≤ 1 | n=3) = 2 × 4/8, capped at 1
    ten = paired({str(i): False for i in range(10)}, {str(i): True for i in range(10)})
    assert ten["gained"] == 10 and ten["p_value"] == pytest.approx(2 / 2**10, abs=1e-4)
    assert paired({"x": True}, {"x": True})["p_value"] == 1.0


def test_evaluate_records_each_tableau_as_read_or_missed(tmp_path, reader):
    from ecoscore.datasets.scene import SceneParams
    from ecoscore.datasets.synth import synthesize
    from ecoscore.vision.evaluate import evaluate

    synthesize("standin", 3, tmp_path / "set", seed=99, workers=1, progress=False,
               params=SceneParams(long_side=1280, p_multi=0.0, p_cut_off=0.0))
    ev = evaluate(reader, tmp_path / "set", progress=False)
    assert sorted(ev.outcomes) == ["000000/0", "000001/0", "000002/0"]
    assert sum(ev.outcomes.values()) == ev.exact and ev.tableaux == 3
    assert math.isclose(ev.summary()["tableau_exact_rate"], sum(ev.outcomes.values()) / 3)
