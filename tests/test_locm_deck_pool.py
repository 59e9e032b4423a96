"""A deck_pool: every game of LOCM deals each seat a deck of the pool and starts with the battle,
in the one-game engine and in the batch engine alike."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import games
from games.conformance import PASSED, run_checks
from games.locm import BATTLE, DECK_SIZE
from games.locm_batch import LocmBatch

POOL = [[k] * DECK_SIZE for k in (3, 7, 11, 12, 16)] + [list(range(1, 31))]


def pool_game():
    return games.make("locm", deck_pool=POOL)


def test_each_seat_gets_a_pool_deck_and_the_battle_starts():
    game = pool_game()
    seen = set()
    for seed in range(40):
        state = game.new_initial_state(seed)
        assert state._phase == BATTLE
        for p in (0, 1):
            deck = sorted(state.picks(p))
            assert deck in [sorted(d) for d in POOL]
            seen.add((p, tuple(deck)))
    # both seats draw from the whole pool, independently
    assert len({d for p, d in seen if p == 0}) == len(POOL)
    assert len({d for p, d in seen if p == 1}) == len(POOL)


def test_the_same_seed_deals_the_same_decks_and_another_seed_others():
    game = pool_game()
    a, b = game.new_initial_state(5), game.new_initial_state(5)
    assert a.picks(0) == b.picks(0) and a.picks(1) == b.picks(1) and a.hand(0) == b.hand(0)
    decks = {tuple(tuple(game.new_initial_state(s).picks(p)) for p in (0, 1)) for s in range(20)}
    assert len(decks) > 5


def test_the_batch_engine_deals_pool_decks_in_battle():
    game = pool_game()
    batch = LocmBatch.deal(game, np.random.default_rng(3), 64)
    assert (batch.phase == BATTLE).all()
    pool = {tuple(sorted(d)) for d in POOL}
    dealt = set()
    for g in range(64):
        state = batch.state(g)
        for p in (0, 1):
            deck = tuple(sorted(state.picks(p)))
            assert deck in pool
            dealt.add(deck)
    assert len(dealt) == len(POOL)


def test_a_pool_game_passes_the_conformance_checks():
    results = run_checks(pool_game(), num_games=20)
    failed = [(r.name, r.detail) for r in results if not r.ok]
    assert sum(r.status == PASSED for r in results) >= 6
    assert not failed


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"deck_pool": []}, "non-empty"),
        ({"deck_pool": [[3] * 29]}, r"deck_pool\[0\] has 29 cards"),
        ({"deck_pool": [[3] * 30, [0] * 30]}, r"deck_pool\[1\].*card number"),
        ({"deck_pool": [[3] * 30], "decks": [[3] * 30] * 2}, "not decks and deck_pool"),
    ],
)
def test_a_bad_pool_is_refused_in_one_line(settings, message):
    with pytest.raises(games.UserError, match=message):
        games.make("locm", **settings)


def test_resampling_redraws_the_opponents_deck_among_pool_decks_holding_what_they_played():
    game = pool_game()
    rng = np.random.default_rng(0)
    state = game.new_initial_state(11)
    while not state.is_terminal() and len(state._played[1]) < 3:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    played = list(state._played[1])
    assert played
    drawn = set()
    for k in range(60):
        deck = sorted(state.resample_hidden(0, np.random.default_rng(k)).picks(1))
        assert deck in [sorted(d) for d in POOL]
        assert all(deck.count(c) >= played.count(c) for c in played)
        drawn.add(tuple(deck))
    fits = [d for d in POOL if all(d.count(c) >= played.count(c) for c in played)]
    assert len(drawn) == len(fits)


def test_the_pool_script_prints_each_drafters_decks_and_a_seed_gives_the_same_pool():
    script = Path(__file__).resolve().parents[1] / "scripts" / "locm_deck_pool.py"

    def pool(seed):
        args = [sys.executable, str(script), "--drafters", "coac", "random", "--decks", "3", "--seed", str(seed)]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        return tomllib.loads(out)["deck_pool"]

    first = pool(4)
    assert len(first) == 12 and all(len(d) == DECK_SIZE and d == sorted(d) for d in first)
    assert pool(4) == first and pool(5) != first
    assert games.make("locm", deck_pool=first).config.deck_pool == first


def test_a_deck_pool_given_from_a_file_plays_as_the_same_pool_given_on_the_command_line(tmp_path, capsys):
    from deckopt.cli import main
    from deckopt.commands.evolve import split_set

    pool_file = tmp_path / "pool.toml"
    pool_file.write_text("# as scripts/locm_deck_pool.py prints it\ndeck_pool = " + str(POOL) + "\n")
    match = ["match", "locm", "greedy", "max-attack", "--games", "40", "--seed", "3", "--json"]

    def played(value: str) -> dict:
        capsys.readouterr()
        assert main([*match, "--set", f"deck_pool={value}"]) == 0
        result = json.loads(capsys.readouterr().out)
        return {k: v for k, v in result.items() if "second" not in k}

    assert played(f"@{pool_file}") == played(str(POOL).replace(" ", ""))
    assert split_set([f"deck_pool=@{pool_file}"]) == ({"deck_pool": POOL}, {})  # evolve's and sweep's --set
    for setting, words in [
        (f"deck_pool=@{tmp_path / 'none.toml'}", "not found"),
        (f"draft=@{pool_file}", "sets no draft"),
    ]:
        capsys.readouterr()
        assert main([*match, "--set", setting]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
