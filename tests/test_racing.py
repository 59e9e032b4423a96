"""The random-search baseline, the yardstick, racing fitness, evaluator panels and the
studies behind them (tiny configs, the heuristic agent)."""

from __future__ import annotations

import collections
import json
import math
import warnings

import numpy as np
import pytest

from agents import split_agent_specs
from evolution.config import EvolveConfig, split_settings
from evolution.loop import evolve, prepare_run
from evolution.scoring import fitness as fit
from evolution.scoring import racing
from evolution.spaces.gwent import GwentDeal, build_agent
from games.decks import DeckRules
from games.errors import UserError
from games.npz import TRUTH_LIMITS, read_npz_arrays
from tests.test_evolution import snapshot, tiny


def test_racing_rule_stops_decks_whose_rank_is_clear():
    means = np.array([0.9, 0.8, 0.52, 0.5, 0.48, 0.1])
    ses = np.full(6, 0.02)
    doubt = racing.decide(means, ses, kept=3, z=1.0)
    # 0.9 and 0.8 are clearly in, 0.1 clearly out; 0.52 / 0.5 / 0.48 fight for the third place
    assert doubt.tolist() == [False, False, True, True, True, False]
    assert not racing.decide(means, np.full(6, 1e-6), kept=3, z=1.0).any()
    assert racing.decide(means, np.full(6, 1.0), kept=3, z=1.0).all()
    assert not racing.decide(means, ses, kept=6, z=1.0).any()
    # a margin of 0.05 treats 0.52 / 0.5 / 0.48 as equally good: the fight for third place stops
    assert not racing.decide(means, ses, kept=3, z=1.0, margin=0.05).any()
    # 0.01: 0.48's upper bound (0.50) reaches the third lower bound (0.50) only within the margin
    assert racing.decide(means, ses, kept=3, z=1.0, margin=0.01).tolist() == [False, False, True, True, False, False]


def test_racing_rule_never_stops_a_deck_on_the_wrong_side_when_the_intervals_hold():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n, kept, z = int(rng.integers(3, 12)), 0, float(rng.uniform(0.5, 2))
        kept = int(rng.integers(1, n))
        true = rng.random(n)
        ses = rng.uniform(0.001, 0.2, n)
        means = true + rng.uniform(-0.999, 0.999, n) * z * ses  # every interval holds its true score
        doubt = racing.decide(means, ses, kept, z)
        by_mean = np.isin(np.arange(n), np.argsort(-means)[:kept])
        by_truth = np.isin(np.arange(n), np.argsort(-true)[:kept])
        assert (by_mean == by_truth)[~doubt].all()
        # a margin only ever stops more decks
        margin = float(rng.uniform(0, 0.1))
        assert not (racing.decide(means, ses, kept, z, margin) & ~doubt).any()


def test_stratified_standard_error_ignores_the_spread_between_opponents():
    rng = np.random.default_rng(2)
    pieces = [rng.normal(mu, 0.1, 5) for mu in (0.2, 0.5, 0.9, 0.4)]
    mean, se = racing.strata_mean_se(pieces)
    x = np.concatenate(pieces)
    within = sum(((p - p.mean()) ** 2).sum() for p in pieces) / (x.size - len(pieces))
    assert mean == pytest.approx(x.mean()) and se == pytest.approx(np.sqrt(within / x.size))
    assert se < racing.mean_se(x)[1] / 2  # the opponents' spread (0.2 .. 0.9) would dominate
    assert racing.strata_mean_se([np.array([0.5])]) == racing.mean_se(np.array([0.5]))  # too few deals


def synthetic_sample(true, seed, deals=4):
    """A race's `sample`: each active deck plays `deals` deals scored around its true score."""
    played = np.zeros(len(true), int)

    def sample(r, active):
        rng = np.random.default_rng([seed, r])
        noise = rng.normal(0, 0.25, (len(true), deals))
        played[active] += deals
        return [(int(i), true[i] + noise[i]) for i in np.flatnonzero(active)]

    return sample, played


def test_race_spends_its_games_on_the_decks_near_the_boundary():
    true = np.array([0.95, 0.9, 0.605, 0.6, 0.595, 0.59, 0.1, 0.05])
    sample, played = synthetic_sample(true, seed=3, deals=32)
    stopped = racing.race(sample, 8, kept=3, rounds=10, z=2.0)
    assert stopped[[0, 1, 6, 7]].tolist() == [1, 1, 1, 1]  # far from third place: out after a round
    assert (stopped[2:6] > 1).all() and played[2:6].min() > played[[0, 1, 6, 7]].max()
    again, _ = synthetic_sample(true, seed=3, deals=32)
    assert racing.race(again, 8, kept=3, rounds=10, z=2.0).tolist() == stopped.tolist()  # same seed, same race
    wide, played_wide = synthetic_sample(true, seed=3, deals=32)
    racing.race(wide, 8, kept=3, rounds=10, z=2.0, margin=0.05)
    assert played_wide.sum() < played.sum()


def test_racing_study_on_a_synthetic_ground_truth():
    from evolution.studies.racing import plot_study, study

    rng = np.random.default_rng(0)
    true = np.linspace(0.3, 0.7, 12)
    store = np.round(np.clip(rng.normal(true[:, None, None], 0.3, (12, 4, 40)), 0, 1) * 4) / 4
    res = study(store, 4, [16, 80], 5, [1.0], 20, 0, margins=[0.0, 0.05], strata=[False, True])
    rows = res["rows"]
    assert [r["method"] for r in rows] == ["fixed"] * 2 + ["racing"] * 4 + ["oracle"] * 2
    fixed_small, fixed_big = rows[:2]
    assert fixed_small["games_per_deck"] == 16 and fixed_big["games_per_deck"] == 80
    assert fixed_big["accuracy_vs_max_fixed"] == 0 and fixed_big["regret"] < fixed_small["regret"]
    for race in rows[2:6]:
        assert race["games_per_deck"] < 80 and race["accuracy"] > fixed_small["accuracy"] - 0.2
        assert 0 <= race["regret"] < 0.4
    plain, wide = rows[2], rows[3]
    assert wide["games_per_deck"] < plain["games_per_deck"]
    assert [round(r["games_per_deck"]) for r in rows[6:]] == [16, 80]  # the oracle spends the same budget
    assert res == study(store, 4, [16, 80], 5, [1.0], 20, 0, margins=[0.0, 0.05], strata=[False, True])
    assert plot_study(res)[:8] == b"\x89PNG\r\n\x1a\n"


def test_oracle_gives_the_budget_to_decks_near_the_boundary_but_not_on_it():
    from evolution.studies.racing import oracle_allocation

    true = np.array([0.9, 0.62, 0.6, 0.5, 0.48, 0.1])
    store = np.clip(true[:, None, None] + np.random.default_rng(4).normal(0, 0.25, (6, 2, 200)), 0, 1)
    deals = oracle_allocation(store, kept=3, games=4 * 40, cap=100)
    assert deals.sum() == 6 * 40 and deals.max() <= 100
    assert deals[[1, 4]].min() > deals[[0, 5]].max()


def test_study_racing_cli_on_a_stored_ground_truth(tmp_path, capsys):
    from deckopt.cli import main

    rng = np.random.default_rng(5)
    store = np.round(np.clip(rng.normal(np.linspace(0.3, 0.7, 8)[:, None, None], 0.3, (8, 2, 30)), 0, 1) * 4) / 4
    np.savez(tmp_path / "truth.npz", store=store)
    args = ["study", "racing", str(tmp_path), "--kept", "3", "--fixed-games", "8,40", "--rounds", "5"]
    args += ["--opponents", "2", "--deals", "30"]  # what the stored ground truth holds
    assert main([*args, "--z", "1", "--margin", "0,0.02", "--se", "plain,strata", "--replicates", "5"]) == 0
    out = capsys.readouterr().out
    assert "regret" in out and (tmp_path / "racing.png").is_file()
    assert len(json.loads((tmp_path / "racing.json").read_text())["rows"]) == 2 + 4 + 2
    assert main([*args, "--se", "exact"]) == 2
    assert "--se takes plain" in capsys.readouterr().err
    assert main(["study", "racing", str(tmp_path / "none"), "--random-decks", "0"]) == 2
    assert "0 decks to study" in capsys.readouterr().err
    # a ground truth played here: random decks of any size are saved with it
    small = [
        "--random-decks",
        "3",
        "--opponents",
        "2",
        "--deals",
        "2",
        "--kept",
        "1",
        "--fixed-games",
        "4,8",
        "--z",
        "1",
        "--replicates",
        "2",
    ]
    # its plot's name a link to a file outside: the link is replaced, the file left as it is
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"precious")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "racing.png").symlink_to(victim)
    assert main(["study", "racing", str(tmp_path / "new"), *small, "--agent", "heuristic", "--jobs", "1"]) == 0
    assert victim.read_bytes() == b"precious" and not (tmp_path / "new" / "racing.png").is_symlink()
    saved = read_npz_arrays(tmp_path / "new" / "truth.npz", TRUTH_LIMITS)  # by the study's own reader
    decks, opponents = (json.loads(str(saved[k][()])) for k in ("decks", "opponents"))
    assert saved["store"].shape == (3, 2, 2) and len(decks) == 3 and len(opponents) == 2
    played = (tmp_path / "new" / "truth.npz").stat().st_ino
    assert main(["study", "racing", str(tmp_path / "new"), *small, "--agent", "heuristic", "--jobs", "1"]) == 0
    assert (tmp_path / "new" / "truth.npz").stat().st_ino == played  # reused, not played and written again


@pytest.mark.parametrize(
    "fill, bad, words",
    [
        (np.nan, np.nan, "no ground truth to compare with"),
        (0.5, np.nan, "scores that are not numbers in [0, 1]"),
        (0.5, 1.5, "scores that are not numbers in [0, 1]"),
    ],
    ids=["all NaN", "one NaN", "out of range"],
)
def test_a_stored_ground_truth_without_scores_ends_in_one_line(tmp_path, capsys, fill, bad, words):
    from deckopt.cli import main

    store = np.full((8, 2, 30), fill)
    store[3, 1, 7] = bad
    np.savez(tmp_path / "truth.npz", store=store)
    args = ["study", "racing", str(tmp_path), "--kept", "3", "--fixed-games", "8,40", "--rounds", "5"]
    assert main([*args, "--opponents", "2", "--deals", "30", "--replicates", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "accuracy" not in err, err
    assert not (tmp_path / "racing.json").exists()


def test_split_agent_specs_keeps_options_with_their_spec():
    assert split_agent_specs("pretrained") == ["pretrained"]
    assert split_agent_specs("pretrained, mcts:50,rollout=heuristic,runs/b") == [
        "pretrained",
        "mcts:50,rollout=heuristic",
        "runs/b",
    ]


def test_agent_panel_splits_each_pairings_deals():
    rules = DeckRules()
    panel = build_agent("heuristic,heuristic", rules)
    assert isinstance(panel, fit.AgentPanel) and panel.specs == ("heuristic", "heuristic")
    single = build_agent("heuristic", rules)
    a, b = tuple([4] * 25), tuple([1] * 20 + [16] * 5)
    p = fit.Pairing(a, b, (0, 0, 0, 3), 8)
    task = fit.Task(GwentDeal(DeckRules(25, 100, 1)), (p,), (0, 100, 0, 0))
    # the heuristic is deterministic: a panel of two of it plays exactly its games
    assert np.array_equal(fit.play_task(panel, task)[0], fit.play_task(single, task)[0])
    counts = np.bincount(
        [fit._agent_of_deal(fit.Pairing(a, b, (0, 0, 0, i), 5), d, 3) for i in range(6) for d in range(5)]
    )
    assert counts.tolist() == [10, 10, 10]


def test_random_search_draws_fresh_decks_and_keeps_a_hall_of_fame(tmp_path):
    evolve(tiny(generations=3, selection="random"), tmp_path / "rs", log=None)
    for g in range(3):
        gen = json.loads((tmp_path / "rs" / "generations" / f"gen_{g:04d}.json").read_text())
        assert all(d["origin"] == "random" for d in gen["decks"])
    assert len(json.loads((tmp_path / "rs" / "hall_of_fame.json").read_text())) == 3
    assert (tmp_path / "rs" / "champion.toml").is_file()


def test_yardstick_is_logged_and_chooses_the_champion(tmp_path):
    evolve(tiny(generations=2, yardstick_top=2, playoff_top=2), tmp_path / "y", log=None)
    gen = json.loads((tmp_path / "y" / "generations" / "gen_0001.json").read_text())
    measured = [d for d in gen["decks"] if "yardstick" in d]
    assert len(measured) == 2 and measured == gen["decks"][:2]  # the two best by fitness
    assert measured[0]["yardstick"]["games"] == 20 * 2  # 20 yardstick decks x 2 games
    rows = (tmp_path / "y" / "logbook.csv").read_text().splitlines()
    head = rows[0].split(",")
    assert "yardstick" in head
    assert float(rows[2].split(",")[head.index("yardstick")]) == max(d["yardstick"]["score"] for d in measured)
    champ = json.loads((tmp_path / "y" / "champion.json").read_text())
    assert champ["cards"] == champ["yardstick"][0]["cards"] and len(champ["yardstick"]) == 2
    assert champ["yardstick"][0]["games"] == 20 * 10  # playoff_games_per_pair against every yardstick deck
    with pytest.raises(UserError, match="also a validation deck"):
        evolve(tiny(validate=True, yardstick=["decks/flat.toml"]), tmp_path / "bad", log=None)


def test_a_run_saved_before_the_yardstick_resumes_without_one(tmp_path):
    run = tmp_path / "old"
    evolve(tiny(generations=1, yardstick=[]), run, log=None, finish=False)
    # the flat settings of that version, without the yardstick
    saved = dict(collections.ChainMap(*split_settings(json.loads((run / "config.json").read_text()))))
    saved.pop("yardstick")
    (run / "config.json").write_text(json.dumps(saved))
    ck = json.loads((run / "checkpoints" / "checkpoint.json").read_text())
    ck["config"] = dict(collections.ChainMap(*split_settings(ck["config"])))
    ck["config"].pop("yardstick")
    (run / "checkpoints" / "checkpoint.json").write_text(json.dumps(ck))
    assert prepare_run(None, run, resume=True)[0].settings.yardstick == []
    evolve(None, run, resume=True, overrides={"generations": 2}, log=None, finish=False)


def racing_config(**kw) -> EvolveConfig:
    return tiny(**{"generations": 3, "pool": 8, "games_per_pair": 8, "fitness": "racing", "racing_rounds": 4, **kw})


def test_racing_run_spends_fewer_games_records_them_and_resumes_exactly(tmp_path):
    ref = tmp_path / "ref"
    evolve(racing_config(), ref, log=None)
    fixed = tmp_path / "fixed"
    evolve(racing_config(fitness="fixed"), fixed, log=None)
    for g in range(3):
        r = json.loads((ref / "generations" / f"gen_{g:04d}.json").read_text())
        f = json.loads((fixed / "generations" / f"gen_{g:04d}.json").read_text())
        assert r["games"] < f["games"]
        counts = [d["racing_games"] for d in r["decks"]]
        assert all(c > 0 for c in counts) and len(set(counts)) > 1  # some decks stopped early
    run = tmp_path / "cut"

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(racing_config(), run, log=None, on_generation=stop_after_first)
    evolve(None, run, resume=True, log=None)
    assert snapshot(run) == snapshot(ref)
    two = tmp_path / "two"
    evolve(racing_config(jobs=2), two, log=None)
    assert snapshot(two) == snapshot(ref)


def test_racing_needs_rounds_that_split_the_games():
    with pytest.raises(UserError, match="racing_rounds"):
        tiny(fitness="racing", games_per_pair=10, racing_rounds=2)


def test_spearman():
    from agents.stats import spearman

    assert spearman([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486833)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # undefined without spread: NaN, and no numpy warning
        assert math.isnan(spearman([0.5, 0.5, 0.5], [1, 2, 3])) and math.isnan(spearman([1], [2]))


def test_decks_validate_under_another_agent(tmp_path, capsys):
    from deckopt.cli import main

    run = tmp_path / "v"
    evolve(tiny(generations=1), run, log=None)
    code = main(
        ["decks", str(run), "--validate", "--agent", "random", "--panel", "decks/flat.toml", "--games", "4", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["validation"]["agent"] == "random" and out["validation"]["games"] == 4


def test_gwent_lite_deals_from_a_deck_pool():
    import games

    pool = [[4] * 25, [1] * 20 + [16] * 5]
    g = games.make("gwent_lite", deck_pool=pool)
    seen = set()
    for seed in range(20):
        s = g.new_initial_state(seed)
        for p in (0, 1):
            seen.add(tuple(sorted(s._decks[p])))
    assert seen == {tuple(d) for d in pool}
    mixed = games.make("gwent_lite", deck_pool=pool, pool_share=0.5)
    assert any(tuple(sorted(mixed.new_initial_state(k)._decks[0])) not in seen for k in range(20))
    # without a pool the deal is the same as before (the random stream is untouched)
    a, b = games.make("gwent_lite").new_initial_state(3), games.make("gwent_lite", deck_pool=None).new_initial_state(3)
    assert a._decks == b._decks
    with pytest.raises(UserError, match="pool_share"):
        games.make("gwent_lite", deck_pool=pool, pool_share=2)
    with pytest.raises(UserError, match="deck_pool"):
        games.make("gwent_lite", deck_pool=[[1, 2]])


def test_stored_ground_truth_settings_of_the_wrong_shape_end_in_one_line(tmp_path, capsys):
    """The settings a ground truth keeps as JSON are checked against their schema
    (deckopt.commands.study.TRUTH_SETTINGS) before they are compared with the flags."""
    from deckopt.cli import main

    settings = json.dumps({"seed": 0, "opponents": "two", "deals": 30})
    np.savez(tmp_path / "truth.npz", store=np.full((8, 2, 30), 0.5), settings=np.array(settings))
    args = ["study", "racing", str(tmp_path), "--kept", "3", "--fixed-games", "8,40", "--rounds", "5"]
    assert main([*args, "--opponents", "2", "--deals", "30", "--replicates", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.opponents must be a whole number" in err, err
