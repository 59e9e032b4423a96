"""The MAP-Elites archive run (evolution.archive.grid): tiny runs with the heuristic agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_evolution import tiny
from test_evolution_kittens import TINY

from deckopt.cli import main
from evolution.archive.results import best_candidates
from evolution.config import EvolveConfig, load_config
from evolution.loop import evolve
from evolution.scoring.yardstick import pooled_records
from evolution.spaces.registry import space_for
from games.errors import UserError


def archive_config(**kw) -> EvolveConfig:
    return tiny(archive=True, generations=3, pool=8, **kw)


def finished_run(tmp_path_factory, **kw) -> Path:
    """A finished tiny archive run, with archive.json as it was after each generation."""
    run = tmp_path_factory.mktemp("archive") / "run"
    after = []
    evolve(archive_config(**kw), run, log=None, on_generation=lambda gen: after.append(read(run)))
    (run / "after.json").write_text(json.dumps(after))
    return run


@pytest.fixture(scope="module")
def archive_run(tmp_path_factory) -> Path:
    return finished_run(tmp_path_factory)


@pytest.fixture(scope="module")
def elites_run(tmp_path_factory) -> Path:
    """archive_population 0: every child bred from elites, and elites measured again."""
    return finished_run(tmp_path_factory, archive_population=0.0)


def read(run: Path) -> dict:
    return json.loads((run / "archive.json").read_text())


def generation(run: Path, gen: int) -> list[dict]:
    return json.loads((run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]


def without_best(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "best_elite"}


def test_archive_holds_distinct_legal_elites_each_in_its_cell(archive_run):
    data = read(archive_run)
    config = archive_config()
    space = space_for(config)
    entries = data["entries"]
    assert data["generation"] == 2 and len(entries) >= 3
    assert len({tuple(e["cards"]) for e in entries}) == len(entries)
    assert len({tuple(e["cell"]) for e in entries}) == len(entries)
    for e in entries:
        assert space.problems(e["cards"]) == []
        assert e["ci95"][0] <= e["score"] <= e["ci95"][1] and e["games"] > 0
        values = space.descriptors(e["cards"])
        assert values == pytest.approx([e[name] for name in data["descriptors"]])
        for v, k, (lo, hi), n in zip(values, e["cell"], data["ranges"], data["cells"]):
            width = (hi - lo) / n
            assert lo + k * width - 1e-9 <= v <= lo + (k + 1) * width + 1e-9
        # its score is a measurement (pooled) of a generation since it took its cell, and each of
        # those generations' pools measured it again
        measured = [d for g in range(e["since"], 3) for d in generation(archive_run, g) if d["cards"] == e["cards"]]
        assert [e["score"], e["games"]] in [[d["score"], d["games"]] for d in measured]
        assert e["measured"] == 1 + sum(d["origin"] in ("elite", "survivor") for d in measured)
    assert (archive_run / "archive.png").read_bytes()[:4] == b"\x89PNG"


def test_elites_with_the_highest_upper_bounds_are_measured_again_and_pooled(elites_run):
    archive_run = elites_run
    after = json.loads((archive_run / "after.json").read_text())
    config = archive_config(archive_population=0.0)
    for gen in (1, 2):
        before = after[gen - 1]["entries"]
        ranked = sorted(before, key=lambda e: -e["ci95"][1])
        again = [d for d in generation(archive_run, gen) if d["origin"] == "elite"]
        assert sorted(d["cards"] for d in again) == sorted(e["cards"] for e in ranked[: config.survivors])
        children = [d for d in generation(archive_run, gen) if d["origin"] != "elite"]
        assert len(again) + len(children) == config.pool
        # the children are new decks: no copy of an elite nor of each other
        assert len({tuple(d["cards"]) for d in children} | {tuple(e["cards"]) for e in before}) == len(children) + len(
            before
        )
        for d in again:
            old = next(e for e in before if e["cards"] == d["cards"])
            # this generation's games pooled with its past ones (score_memory 4: all of them so far)
            assert d["games"] == old["games"] + children[0]["games"]
            now = next((e for e in after[gen]["entries"] if e["cards"] == d["cards"]), None)
            if now is not None:  # kept its cell: with its new score, higher or lower
                assert (now["score"], now["games"], now["measured"]) == (d["score"], d["games"], old["measured"] + 1)
            else:  # lost it to a child of this generation that beat its new score
                cell = next(e for e in after[gen]["entries"] if e["cell"] == old["cell"])
                assert cell["since"] == gen and cell["score"] > d["score"]


def test_best_elite_is_chosen_on_a_fresh_yardstick_measurement(archive_run):
    data = read(archive_run)
    config = archive_config()
    best = data["best_elite"]
    # the candidates: as a plain run's champion's, the elites best on their yardstick games of the
    # run, then the best by pooled fitness
    on_yardstick = pooled_records([json.loads(p.read_text()) for p in sorted((archive_run / "generations").glob("*"))])
    assert 0 < len(on_yardstick.keys() & {tuple(e["cards"]) for e in data["entries"]}) < config.playoff_top
    top = best_candidates(data["entries"], on_yardstick, config.playoff_top)
    by_yardstick = [e for e in top if tuple(e["cards"]) in on_yardstick]
    assert top[: len(by_yardstick)] == by_yardstick
    rest = sorted((e for e in data["entries"] if tuple(e["cards"]) not in on_yardstick), key=lambda e: -e["score"])
    assert top[len(by_yardstick) :] == rest[: config.playoff_top - len(by_yardstick)]
    candidates = best["candidates"]
    assert sorted(c["cards"] for c in candidates) == sorted(e["cards"] for e in top)
    assert all(("pooled_yardstick" in c) == (tuple(c["cards"]) in on_yardstick) for c in candidates)
    assert best["cards"] == candidates[0]["cards"]
    assert [c["score"] for c in candidates] == sorted((c["score"] for c in candidates), reverse=True)
    yardstick_decks = len(space_for(config).references(config.settings.yardstick))
    assert all(c["games"] == config.settings.playoff_games_per_pair * yardstick_decks for c in candidates)
    assert best["games"] == sum(c["games"] for c in candidates)
    for c in candidates:  # the pooled archive score is kept beside the fresh one
        e = next(e for e in data["entries"] if e["cards"] == c["cards"])
        assert (c["archive_score"], c["archive_games"]) == (e["score"], e["games"])


def test_same_seed_same_archive(archive_run, tmp_path):
    evolve(archive_config(), tmp_path / "again", log=None, finish=False)
    same = read(tmp_path / "again")
    assert same == without_best(read(archive_run))
    evolve(archive_config(seed=7), tmp_path / "other", log=None, finish=False)
    assert json.loads((tmp_path / "other" / "archive.json").read_text())["entries"] != same["entries"]


def test_decks_archive_prints_the_elites_and_validates_the_best(archive_run, capsys):
    data = read(archive_run)
    assert main(["decks", str(archive_run), "--archive"]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].startswith(f"{len(data['entries'])} elites over min_power_share x top5_power_share")
    assert len(lines) == 1 + len(data["entries"]) + 1 + len(data["best_elite"]["candidates"])
    top = max(data["entries"], key=lambda e: e["score"])
    assert f"score {top['score']:.3f}" in lines[1] and f"measured {top['measured']}x" in lines[1]
    best = data["best_elite"]["candidates"][0]
    assert lines[len(data["entries"]) + 1].startswith("best elite (best against the yardstick")
    assert lines[len(data["entries"]) + 2].startswith(f"  * {best['score']:.3f}")
    assert main(["decks", str(archive_run), "--archive", "--json", "--validate", "--games", "2"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert "past_scores" not in shown["entries"][0]
    assert shown["validation"]["deck"] == best["cards"] and shown["validation"]["games_per_reference"] == 2
    assert shown["validation"]["how"].startswith("best elite: ")


def test_decks_archive_of_a_plain_run_and_bad_cells_are_refused(archive_run, tmp_path, capsys):
    evolve(tiny(), tmp_path / "plain", log=None, finish=False)
    assert main(["decks", str(tmp_path / "plain"), "--archive"]) != 0
    assert "has no archive (evolve it with --archive)" in capsys.readouterr().err
    with pytest.raises(UserError, match="10x10"):
        tiny(archive=True, archive_cells="ten")


def test_kittens_archive_counts_skips_and_attacks(tmp_path):
    config = load_config(**{**TINY, "archive": True, "archive_cells": "3x3"})
    evolve(config, tmp_path / "ek", log=None, finish=False)
    data = json.loads((tmp_path / "ek" / "archive.json").read_text())
    assert data["descriptors"] == ["skips", "attacks"] and data["entries"]
    for e in data["entries"]:
        skips, attacks = np.bincount(e["cards"], minlength=3)[1:3]
        assert (e["skips"], e["attacks"]) == (skips, attacks)


def test_resumed_archive_run_ends_with_the_same_archive(archive_run, tmp_path):
    run = tmp_path / "cut"

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(archive_config(), run, log=None, on_generation=stop_after_first)
    assert json.loads((run / "archive.json").read_text())["generation"] == 0
    evolve(None, run, resume=True, log=None, finish=False)
    assert read(run) == without_best(read(archive_run))  # past games of the elites included
    evolve(None, run, resume=True, log=None)  # the finish: the same best elite
    assert read(run)["best_elite"] == read(archive_run)["best_elite"]
    data = json.loads((run / "archive.json").read_text())
    (run / "archive.json").write_text(json.dumps({**data, "generation": 0}))  # behind the checkpoint
    with pytest.raises(UserError, match="not of generation 2"):
        evolve(None, run, resume=True, overrides={"generations": 4}, log=None, finish=False)


@pytest.mark.parametrize(
    "rules",
    [
        {"min_cards": 25, "max_total": 100, "min_power": 1},
        {"min_cards": 10, "max_total": 60, "min_power": 2},
        {"min_cards": 3, "max_total": 100, "min_power": 1},
    ],
)
def test_the_gwent_grid_spans_exactly_the_legal_decks(rules):
    """The top five's share ranges from the flattest legal deck to five big cards beside the fewest
    weak ones: random legal decks of every shape fall inside, and those two decks reach the ends."""
    from games.decks import DeckRules

    config = tiny(rules=DeckRules(**rules))
    r = config.settings.rules
    space, rng = space_for(config), np.random.default_rng(0)
    (_, (lo, hi)) = space.descriptor_space()[1]
    for _ in range(300):
        top5 = space.descriptors(space.random_deck(rng))[1]
        assert lo - 1e-12 <= top5 <= hi + 1e-12
    flattest = [r.min_power] * r.max_cards
    spiky = [r.min_power] * max(r.min_cards - 5, 0) + [r.max_power] + [r.min_power] * min(4, r.min_cards - 1)
    spiky[-1] += r.max_total - sum(spiky)  # the rest of the budget on one card
    assert space.problems(flattest) == [] and space.problems(spiky) == []
    assert space.descriptors(flattest)[1] == pytest.approx(lo)
    assert space.descriptors(spiky)[1] == pytest.approx(hi)


def test_an_archive_with_its_own_population_resumes_exactly_and_breeds_from_it(tmp_path):
    """archive_population: the best decks of each pool are kept (measured again as survivors, in
    place of elites) and breed that share of the children; archive.json carries them, so a resumed
    run ends where the uninterrupted one does."""
    config = archive_config(archive_population=0.5, survivors=3)
    straight, cut = tmp_path / "straight", tmp_path / "cut"
    evolve(config, straight, log=None, finish=False)
    data = read(straight)
    assert len(data["population"]) == 3
    last = generation(straight, 2)
    best = sorted(last, key=lambda d: -d["score"])[:3]
    assert sorted(p["cards"] for p in data["population"]) == sorted(d["cards"] for d in best)
    kept = [d for d in generation(straight, 2) if d["origin"] == "survivor"]
    assert len(kept) == 3  # the population of generation 1, measured again

    def stop_after_first(gen):
        if gen == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evolve(config, cut, log=None, on_generation=stop_after_first)
    evolve(None, cut, resume=True, log=None, finish=False)
    assert read(cut) == read(straight)
