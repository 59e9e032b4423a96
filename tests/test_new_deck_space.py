"""A new deck game is one deck space: the toy space of tests/high_card_space.py (the example plug-in
game High Card), listed in the registry, runs the whole evolution loop (a new run and a resumed one,
the run folder, the champion, the HTML report) with nothing else changed."""

from __future__ import annotations

import json

import pytest

from evolution.config import load_config
from evolution.loop import evolve
from evolution.spaces import registry
from tests.high_card_space import HighCardSpace

TINY = dict(game="high_card", agent="random", generations=2, pool=4, survivors=2, offspring_per_survivor=1)
TINY |= dict(hof_size=2, games_per_pair=4, jobs=1, plot_every=1, validate=False, yardstick=[])


@pytest.fixture
def high_card_registered(monkeypatch):
    monkeypatch.setitem(registry.SPACES, HighCardSpace.name, HighCardSpace)


def test_the_loop_evolves_high_card_decks(high_card_registered, tmp_path):
    summary = evolve(load_config(**TINY), tmp_path / "run", log=None)
    run = tmp_path / "run"
    assert json.loads((run / "config.json").read_text())["game"] == "high_card"
    space = HighCardSpace()
    for gen in range(2):
        decks = json.loads((run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]
        assert len(decks) == 4 and all(space.problems(d["cards"]) == [] and d["games"] == 4 for d in decks)
    assert space.problems(summary["champion"]["cards"]) == []
    assert json.loads((run / "champion.toml").read_text())["deck"] == summary["champion"]["cards"]
    assert (run / "report.html").is_file() and (run / "fitness.png").is_file()
    # resumed to a third generation, it continues the same run
    evolve(None, run, resume=True, overrides={"generations": 3}, log=None)
    assert (run / "generations" / "gen_0002.json").is_file()


def test_an_unlisted_game_is_refused_in_one_line():
    from games.errors import UserError

    with pytest.raises(UserError, match="game must be one of gwent_lite, exploding_kittens"):
        load_config(game="high_card")
