"""Deck evolution: operators keep decks legal, repair is unbiased, mirrored fitness is fair, runs are
deterministic (whatever the workers), resume equals an uninterrupted run, the Dask backend works,
bad deck files and run folders are refused with one line."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import games
from agents.parallel import Mapper
from evolution.config import EXECUTION_FIELDS, EvolveConfig, load_config, split_settings
from evolution.decks import genome
from evolution.loop import evolve
from evolution.scoring import fitness as fit
from evolution.spaces.gwent import GwentDeal, build_agent
from games.decks import DECK_SHAPES, DeckRules
from games.errors import UserError

RULE_SETS = [
    DeckRules(),
    DeckRules(10, 40, 1),
    DeckRules(25, 100, 2),
    DeckRules(5, 60, 3),
    DeckRules(1, 1, 1),
    DeckRules(3, 9, 3),
    DeckRules(30, 100, 1),
    DeckRules(8, 200, 1),
]


def legal(rules: DeckRules, cards) -> bool:
    return not rules.problems(cards)


def random_legal_list(rules: DeckRules, rng) -> list[int]:
    """Any legal deck: more cards than the minimum, under budget, any spread."""
    n = int(rng.integers(rules.min_cards, min(rules.max_cards, rules.min_cards + 6) + 1))
    spare = int(rng.integers(0, rules.max_total - n * rules.min_power + 1))
    cards = np.full(n, rules.min_power)
    np.add.at(cards, rng.integers(0, n, size=spare), 1)
    return cards.tolist()


# --- operators ----------------------------------------------------------------------------------
def test_every_shape_gives_legal_decks_under_many_rules():
    rng = np.random.default_rng(0)
    for rules in RULE_SETS:
        for shape, make in genome.SHAPES.items():
            for _ in range(40):
                d = make(rules, rng)
                assert legal(rules, d), (shape, rules, d)
                assert d == sorted(d)
    # the ancestor sampler always spends exactly the budget on exactly min_cards cards
    for _ in range(100):
        d = DECK_SHAPES["normal"](DeckRules(), rng)
        assert len(d) == 25 and sum(d) == 100


def test_mutation_and_crossover_keep_decks_legal_and_budget_neutral():
    rng = np.random.default_rng(1)
    for rules in RULE_SETS:
        for _ in range(150):
            a, b = random_legal_list(rules, rng), random_legal_list(rules, rng)
            m = genome.mutate(a, rules, rng, card_rate=0.3, step_sigma=2.0, add_prob=0.3, remove_prob=0.3)
            assert legal(rules, m), (rules, a, m)
            assert sum(m) == sum(a)  # budget-neutral: mutation neither inflates nor drains a deck
            c1, c2 = genome.crossover(a, b, rules, rng)
            assert legal(rules, c1) and legal(rules, c2)
            assert (sum(c1), sum(c2)) == (sum(a), sum(b))
    # mutation changes something most of the time
    d = DeckRules().random_deck(rng)
    assert sum(genome.mutate(d, DeckRules(), rng) != d for _ in range(50)) > 40


def test_repair_restores_legality_and_leaves_legal_decks_alone():
    rng = np.random.default_rng(2)
    for rules in RULE_SETS:
        for _ in range(150):
            n = int(rng.integers(0, rules.min_cards + 5))
            broken = rng.integers(-3, rules.max_power + 10, size=n).tolist()
            fixed = genome.repair(broken, rules, rng)
            assert legal(rules, fixed), (rules, broken, fixed)
            ok = random_legal_list(rules, rng)
            assert genome.repair(ok, rules, rng) == sorted(ok)


def ancestor_repair(cards, target, rng):
    """The ancestor's budget fix (shuffle, walk the deck; over budget, a 1 is *raised*)."""
    cards = list(cards)
    order = rng.permutation(len(cards))
    diff, i = sum(cards) - target, 0
    while diff != 0:
        k = order[i]
        if diff > 0 and cards[k] > 1:
            cards[k] -= 1
            diff -= 1
        else:
            cards[k] += 1
            diff += 1
        i = (i + 1) % len(cards)
    return cards


def mean_correction(repair_fn, deck, trials, rng):
    """Per card: mean of (repaired - noisy) under symmetric +-1 noise on the cards above 1."""
    deck = np.array(deck)
    total = np.zeros(deck.size)
    for _ in range(trials):
        noise = rng.choice([-1, 0, 1], size=deck.size) * (deck > 1)
        noisy = deck + noise
        total += np.array(repair_fn(noisy.tolist(), int(deck.sum()), rng)) - noisy
    return total / trials


def test_repair_is_unbiased():
    rng = np.random.default_rng(3)
    rules = DeckRules()
    deck = [1] * 8 + [2] * 4 + [4] * 6 + [6] * 4 + [9, 10, 14]
    assert sum(deck) == 100 - 3  # room below the budget, so corrections go both ways

    def ours(cards, target, g):
        return genome.repair(cards, rules, g, target_total=target, keep_order=True)

    corr = mean_correction(ours, deck, 3000, rng)
    assert np.abs(corr).max() < 0.05, corr  # no card pushed up or down on average
    assert np.all(corr[:8] == 0)  # cards at the floor are never touched by budget corrections
    # the same statistic catches the ancestor's repair raising its 1-power cards
    theirs = mean_correction(ancestor_repair, deck, 3000, rng)
    assert theirs[:8].mean() > 0.1, theirs
    # over budget: only lowering, exactly the excess, spread evenly over the cards above the floor
    over = [1] * 10 + [5] * 10 + [9] * 5  # total 105
    lost = np.zeros(25)
    for _ in range(2000):
        fixed = genome.repair(over, rules, rng, keep_order=True)
        assert sum(fixed) == 100 and all(f <= o for f, o in zip(fixed, over))
        lost += np.array(over) - fixed
    per_card = lost[10:] / 2000
    assert np.all(lost[:10] == 0)
    assert np.abs(per_card - 5 / 15).max() < 0.06, per_card


# --- fitness --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def heuristic():
    return build_agent("heuristic", DeckRules())


def test_deck_against_itself_scores_half(heuristic):
    rules = DeckRules()
    deck = tuple(DECK_SHAPES["normal"](rules, np.random.default_rng(4)))
    pairings = [fit.Pairing(deck, deck, (7, 0, 0, 0), 100)]
    with Mapper(1) as pmap:
        out = fit.play_pairings(pairings, heuristic, GwentDeal(rules), pmap, 300, (7, 0, 0))
    s = fit.Score()
    s.add(out[0])
    # each deal's second game is its first with the decks' roles exchanged: exactly one win each
    # (or two draws), so a deck against itself scores 1/2 in every deal, not just on average
    assert s.games == 200 and s.score == 0.5 and np.all(np.concatenate(s.deal_scores) == 0.5)
    t = fit.Score()
    t.add(out[0], flip=True)
    assert t.score == pytest.approx(1 - s.score)


def test_mirrored_deal_hands_the_luck_over():
    """In the second game of a deal each deck draws by the rank order its opponent drew in the
    first, and leads when its opponent led."""
    import games

    rules = DeckRules(min_cards=25, max_total=400)
    a, b = tuple(range(1, 26)), tuple(range(2, 27))  # distinct powers: b's k-th smallest = a's + 1
    g_ab = games.make("gwent_lite", decks=[a, b], rules=rules)
    g_ba = games.make("gwent_lite", decks=[b, a], rules=rules)
    for s in fit.deal_seeds((1, 0, 0, 0), 5):
        s1, s2 = g_ab.new_initial_state(s), g_ba.new_initial_state(s)
        order_a1 = s1.hand(0) + s1.draw_pile(0)  # hand is sorted, pile in draw order
        order_b2 = s2.hand(0) + s2.draw_pile(0)
        assert [c + 1 for c in order_a1] == order_b2
        order_b1, order_a2 = s1.hand(1) + s1.draw_pile(1), s2.hand(1) + s2.draw_pile(1)
        assert [c - 1 for c in order_b1] == order_a2
        assert s1.leader == s2.leader  # the same seat leads: the other deck


def test_mirrored_deal_cancels_luck(heuristic):
    """The two games of a deal are not positively correlated (the engine's mirrored=True, which
    keeps each deck's card order, correlates them at about +0.9 on this matchup)."""
    from games.decks import load_deck
    from games.fileio import resolve_path

    rules = DeckRules()
    a = (1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 6, 7, 7, 8, 11)
    b = tuple(load_deck(resolve_path("decks/ancestor/gen840_best.toml")).cards)
    with Mapper(1) as pmap:
        out = fit.play_pairings(
            [fit.Pairing(a, b, (3, 0, 0, 0), 400)], heuristic, GwentDeal(rules), pmap, 800, (3, 0, 0)
        )[0]
    g = (out.astype(float) + 1) / 2
    assert np.corrcoef(g[:, 0], g[:, 1])[0, 1] < 0.1


def test_stronger_deck_scores_higher(heuristic):
    """Fitness measures something: a full-budget deck beats a deck of 25 ones."""
    rules = DeckRules()
    strong, weak = tuple([4] * 25), tuple([1] * 25)
    with Mapper(1) as pmap:
        out = fit.play_pairings(
            [fit.Pairing(strong, weak, (0, 0, 0, 0), 20)], heuristic, GwentDeal(rules), pmap, 100, (0, 0, 0)
        )
    s = fit.Score()
    s.add(out[0])
    assert s.score > 0.95 and s.ci95[0] > 0.8


# --- runs -----------------------------------------------------------------------------------------
def tiny(**kw) -> EvolveConfig:
    base = dict(
        generations=2,
        pool=6,
        games_per_pair=4,
        agent="heuristic",
        jobs=1,
        survivors=2,
        hof_size=3,
        hof_opponents=2,
        random_opponents=2,
        games_per_task=20,
        playoff_top=3,
        playoff_games_per_pair=10,
        validate=False,
        plot_every=0,
        yardstick_top=1,
        yardstick_games=2,
        opponents=["population", "hall-of-fame", "random"],
        offspring_per_survivor=1,
    )
    base.update(kw)
    return load_config(**base)


def snapshot(run: Path) -> dict:
    """Everything a run computed, without wall-clock timings."""
    out = {}
    for f in sorted((run / "generations").glob("gen_*.json")):
        d = json.loads(f.read_text())
        d.pop("seconds")
        out[f.name] = d
    ck = json.loads((run / "checkpoints" / "checkpoint.json").read_text())
    for row in ck["logbook"]:
        row.pop("seconds"), row.pop("games_per_s")
    ck["config"] = dict(collections.ChainMap(*split_settings(ck["config"])))
    for name in EXECUTION_FIELDS:  # how a run was executed (jobs, backend, ...) is not what it computed
        ck["config"].pop(name)
    out["checkpoint"] = ck
    for name in ("best_decks.json", "hall_of_fame.json", "champion.json"):
        if (run / name).is_file():
            d = json.loads((run / name).read_text())
            if isinstance(d, dict):
                d.pop("run", None)
            out[name] = d
    return out


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("evo") / "ref"
    evolve(tiny(generations=3), path, log=None)
    return path


def test_tiny_run_is_deterministic_and_jobs_do_not_matter(reference_run, tmp_path):
    evolve(tiny(generations=3, jobs=2), tmp_path / "two", log=None)
    assert snapshot(tmp_path / "two") == snapshot(reference_run)
    with Mapper(2) as pmap:  # the same reused worker processes: no TensorFlow was imported there
        assert not any(pmap(eval, [("any(m in __import__('sys').modules for m in ('tensorflow', 'keras'))",)] * 4))
    files = {p.name for p in reference_run.iterdir()}
    assert {
        "config.json",
        "logbook.csv",
        "best_decks.json",
        "hall_of_fame.json",
        "champion.json",
        "champion.toml",
        "generations",
        "checkpoints",
    } <= files
    gen = json.loads((reference_run / "generations" / "gen_0002.json").read_text())
    assert len(gen["decks"]) == 6 and all(legal(DeckRules(), d["cards"]) for d in gen["decks"])
    d = gen["decks"][0]
    assert d["ci95"][0] <= d["score"] <= d["ci95"][1] and d["games"] > 0
    # the same games split by opponent kind; the logbook follows the best deck against random decks
    assert set(d["by_opponents"]) == {"population", "hall-of-fame", "random"}
    assert sum(k["games"] for k in d["by_opponents"].values()) == d["games"]
    assert d["by_opponents"]["random"]["games"] == 2 * 4  # 2 random decks x 4 games
    row = json.loads((reference_run / "checkpoints" / "checkpoint.json").read_text())["logbook"][2]
    assert row["best_vs_random"] == d["by_opponents"]["random"]["score"]
    assert row["mean_vs_random"] == pytest.approx(np.mean([e["by_opponents"]["random"]["score"] for e in gen["decks"]]))
    # a different seed gives a different run
    evolve(tiny(generations=3, seed=1), tmp_path / "other", log=None)
    assert snapshot(tmp_path / "other")["gen_0002.json"] != snapshot(reference_run)["gen_0002.json"]


def test_resume_after_interruption_equals_uninterrupted(reference_run, tmp_path):
    run = tmp_path / "cut"

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(tiny(generations=3), run, log=None, on_generation=stop_after_first)
    assert json.loads((run / "checkpoints" / "checkpoint.json").read_text())["generation"] == 0

    class CutMidGeneration:
        """A map that is interrupted in the middle of generation 1's games."""

        def __init__(self):
            self.calls = 0

        def __call__(self, func, items, on_result=None, scatter=None):
            self.calls += 1
            out = []
            for i, x in enumerate(items):
                if i == 1:
                    raise KeyboardInterrupt
                out.append(func(*x))
            return out

    with pytest.raises(KeyboardInterrupt):
        evolve(None, run, resume=True, log=None, pmap=CutMidGeneration())
    for f in run.rglob("*.json"):
        json.loads(f.read_text())  # nothing torn
    evolve(None, run, resume=True, log=None)
    assert snapshot(run) == snapshot(reference_run)


def test_score_memory_pools_a_survivors_recent_games_and_resumes_exactly(tmp_path):
    config = tiny(generations=4, score_memory=3)
    evolve(config, tmp_path / "full", log=None)
    gens = [json.loads((tmp_path / "full" / "generations" / f"gen_{g:04d}.json").read_text()) for g in range(4)]
    fresh = max(d["games"] for d in gens[3]["decks"] if d["origin"] in ("mutant", "random"))
    for g in (1, 2, 3):
        for d in gens[g]["decks"]:
            if d["origin"] == "survivor":
                prev = next(e for e in gens[g - 1]["decks"] if e["cards"] == d["cards"])
                # its fresh games plus what counted last generation, at most 3 generations' worth
                assert fresh < d["games"] <= 3 * fresh and d["games"] > sum(
                    k["games"] for k in d["by_opponents"].values()
                )
                assert d["games"] <= prev["games"] + sum(k["games"] for k in d["by_opponents"].values())
            else:
                assert d["games"] == sum(k["games"] for k in d["by_opponents"].values())

    def stop_after(gen):
        if gen == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(config, tmp_path / "cut", log=None, on_generation=stop_after)
    evolve(None, tmp_path / "cut", resume=True, log=None)
    assert snapshot(tmp_path / "cut") == snapshot(tmp_path / "full")


def test_a_run_saved_before_score_memory_resumes_with_one_generation_of_games(reference_run, tmp_path):
    import shutil

    from evolution.loop import prepare_run

    run = tmp_path / "old"
    shutil.copytree(reference_run, run)
    saved = json.loads((run / "config.json").read_text())
    assert saved.pop("score_memory") == 4
    (run / "config.json").write_text(json.dumps(saved))
    assert prepare_run(None, run, resume=True)[0].score_memory == 1


def test_resume_can_extend_but_not_change_a_run(reference_run, tmp_path):
    import shutil

    run = tmp_path / "ext"
    shutil.copytree(reference_run, run)
    with pytest.raises(UserError, match="cannot change pool"):
        evolve(None, run, resume=True, overrides={"pool": 8}, log=None)
    evolve(None, run, resume=True, overrides={"generations": 4}, log=None, finish=False)
    assert (run / "generations" / "gen_0003.json").is_file()
    with pytest.raises(UserError, match="already exists"):
        evolve(tiny(), run, log=None)


def test_mu_plus_lambda_with_crossover_and_panel(tmp_path):
    panel = tmp_path / "panel.toml"
    panel.write_text('name = "flat"\ncards = [' + ", ".join(["4"] * 25) + "]\n")
    cfg = tiny(selection="mu+lambda", mu=3, cx_prob=0.5, opponents=["population", "panel"], panel=[str(panel)])
    evolve(cfg, tmp_path / "ml", log=None)
    gen = json.loads((tmp_path / "ml" / "generations" / "gen_0001.json").read_text())
    origins = {d["origin"] for d in gen["decks"]}
    assert "parent" in origins and origins <= {"parent", "mutant"}
    # this generation's games (a survivor's fitness also pools its recent past: score_memory)
    assert all(
        sum(k["games"] for k in d["by_opponents"].values()) == 4 * 5 + 4 for d in gen["decks"]
    )  # 5 pool opponents + the panel deck


def test_dask_backend_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    cfg = tiny(generations=1)
    evolve(cfg, tmp_path / "seq", log=None, finish=False)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        with Mapper(backend="dask", cluster=cluster) as pmap:
            evolve(cfg, tmp_path / "dask", log=None, finish=False, pmap=pmap)
    a, b = snapshot(tmp_path / "seq"), snapshot(tmp_path / "dask")
    assert a["gen_0000.json"] == b["gen_0000.json"]


# --- command line ---------------------------------------------------------------------------------
def cli(*argv):
    from deckopt.cli import main

    return main([str(a) for a in argv])


@pytest.mark.parametrize(
    "text, needle",
    [
        ("cards = [1, 2,\n", "TOML"),
        ("cards = [" + ", ".join(["4"] * 24) + "]\n", "25"),
        ("cards = [" + ", ".join(["5"] * 25) + "]\n", "budget"),
        ('name = "x"\n', "'cards'"),
    ],
)
def test_bad_deck_files_are_refused_with_one_line(tmp_path, capsys, text, needle):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    rc = cli("evolve", "--panel", bad, "--agent", "heuristic", "--out", tmp_path / "run", "--generations", 1)
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "run" / "generations").exists()


def test_cli_evolve_decks_export(reference_run, tmp_path, capsys):
    assert cli("decks", tmp_path / "nowhere") == 2
    assert "not found" in capsys.readouterr().err
    assert cli("decks", reference_run, "--generation", 9) == 2
    capsys.readouterr()
    assert cli("decks", reference_run, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["run"] == "ref" and [g["generation"] for g in report["generations"]] == [0, 1, 2]
    best = report["generations"][0]["best"]
    assert set(best) >= {"cards", "score", "ci95"} and len(best["ci95"]) == 2
    out = tmp_path / "champ.toml"
    assert cli("decks", reference_run, "--export", out, "--top", 2) == 0
    table = capsys.readouterr().out
    assert "1x" in table or "x" in table
    from games.decks import load_deck

    champion = json.loads((reference_run / "champion.json").read_text())["cards"]
    assert load_deck(out).cards == champion


def test_config_file_and_no_tensorflow(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('generations = 3\nopponents = ["population"]\n[rules]\nmin_cards = 10\nmax_total = 40\n')
    c = load_config(f)
    assert c.generations == 3 and c.settings.rules == DeckRules(10, 40, 1)
    f.write_text("generatons = 3\n")
    with pytest.raises(UserError, match="unknown setting"):
        load_config(f)
    with pytest.raises(UserError, match="even"):
        load_config(games_per_pair=3)
    code = (
        "import sys, evolution.loop, evolution.scoring.fitness, evolution.designer.report, "
        "evolution.scoring.validation; "
        "print('tensorflow' in sys.modules or 'keras' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_cli_evolve_json_then_validate(tmp_path, capsys):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(
        "pool = 4\ngames_per_pair = 2\nplayoff_top = 2\nplayoff_games_per_pair = 4\n"
        'opponents = ["population", "random"]\nrandom_opponents = 2\nplot_every = 0\n'
    )
    run = tmp_path / "run"
    assert (
        cli(
            "evolve",
            "--config",
            cfg,
            "--agent",
            "heuristic",
            "--generations",
            2,
            "--validation-games",
            2,
            "--jobs",
            1,
            "--out",
            run,
            "--quiet",
            "--json",
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    v = summary["validation"]
    assert v["games"] == 2 * len(v["references"]) and any(g["group"] == "ancestor" for g in v["groups"])
    assert len(v["references"]) >= 31 and v["held_out"] is True
    assert (run / "fitness.png").stat().st_size > 1000 and (run / "best_deck_powers.png").stat().st_size > 1000
    gen = json.loads((run / "generations" / "gen_0001.json").read_text())
    assert all(
        sum(k["games"] for k in d["by_opponents"].values()) == 2 * 3 + 2 * 2 for d in gen["decks"]
    )  # 3 pool opponents + 2 random decks
    assert cli("decks", run, "--validate", "--games", 2, "--panel", "decks/flat.toml", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in out["validation"]["references"]] == ["flat"]
    # resuming a finished run recomputes nothing
    assert cli("evolve", "--resume", run, "--quiet", "--json") == 0
    assert json.loads(capsys.readouterr().out)["champion"] == summary["champion"]


def test_settings_files_hold_tables_and_flat_files_still_load(tmp_path):
    from evolution.config import config_from_settings

    nested = tmp_path / "nested.toml"
    nested.write_text(
        'generations = 3\nfitness = "racing"\n[gwent]\ngames_per_pair = 4\nopponents = ["population"]\n'
        "[gwent.rules]\nmin_cards = 10\nmax_total = 40\n[racing]\nrounds = 2\n"
        '[archive]\nenabled = true\ncells = "4x4"\n'
    )
    flat = tmp_path / "flat.toml"  # every setting at the top level, as earlier versions wrote them
    flat.write_text(
        'generations = 3\nfitness = "racing"\ngames_per_pair = 4\nopponents = ["population"]\nracing_rounds = 2\n'
        'archive = true\narchive_cells = "4x4"\n[rules]\nmin_cards = 10\nmax_total = 40\n'
    )
    c = load_config(nested)
    assert c == load_config(flat)
    assert (c.settings.games_per_pair, c.racing_rounds, c.archive, c.archive_cells, c.settings.rules.min_cards) == (
        4,
        2,
        True,
        "4x4",
        10,
    )
    assert load_config(nested, racing_rounds=1).racing_rounds == 1  # a flag keeps its name and wins over the file
    saved = c.to_dict()  # config.json: the same tables
    assert saved["racing"] == {"rounds": 2, "z": 1.0, "margin": 0.0} and saved["gwent"]["rules"]["min_cards"] == 10
    assert saved["archive"]["cells"] == "4x4" and "games_per_pair" not in saved
    assert "kittens" not in saved  # only the run game's table
    assert config_from_settings(saved) == c
    with pytest.raises(UserError, match=r"\[racing\]: unknown setting 'roundz'"):
        config_from_settings({"racing": {"roundz": 2}})
    with pytest.raises(UserError, match="given twice"):
        config_from_settings({"racing_rounds": 2, "racing": {"rounds": 2}})


def test_the_normal_shape_answers_to_its_earlier_name():
    """`ancestor` names the `normal` deck shape in old settings, run folders and model metadata."""
    assert load_config(init_shapes=["ancestor", "flat"]).settings.init_shapes == ["normal", "flat"]
    game_config = games.make("gwent_lite", random_deck_shapes=["ancestor"]).config
    assert game_config.random_deck_shapes == ["normal"]
    with pytest.raises(UserError, match="init_shapes"):
        load_config(init_shapes=["ancestral"])
