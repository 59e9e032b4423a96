"""Tournaments: Bradley-Terry / Elo fitting, pairings over every seat, files and the CLI."""

import json

import numpy as np
import pytest

import games
from agents.tournament import expected_score, fit_bradley_terry, play_tournament, seat_assignments
from deckopt.cli import main as cli_main


def synthetic_results(elo, games_per_pair, rng, draw_rate=0.0):
    """score/games matrices drawn from the Bradley-Terry model with the given Elo ratings."""
    k = len(elo)
    score = np.zeros((k, k))
    games = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = expected_score(elo[i], elo[j])
            # a draw takes draw_rate of the games; the rest split so that the expected score is p
            d = rng.binomial(games_per_pair, draw_rate)
            w = rng.binomial(games_per_pair - d, (p - draw_rate / 2) / (1 - draw_rate))
            score[i, j] = w + 0.5 * d
            score[j, i] = games_per_pair - score[i, j]
            games[i, j] = games[j, i] = games_per_pair
    return score, games


@pytest.mark.parametrize("draw_rate", [0.0, 0.1])
def test_bradley_terry_recovers_known_ratings(draw_rate):
    true = np.array([0.0, 120.0, 250.0, -200.0, 60.0])
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(10):
        score, games = synthetic_results(true, 3000, rng, draw_rate)
        fit = fit_bradley_terry(score, games)
        centred = true - true.mean()
        assert np.abs(fit.elo - centred).max() < 25
        covered += int(np.sum((fit.ci95[:, 0] <= centred) & (centred <= fit.ci95[:, 1])))
    # 95 % intervals: about 47.5 of 50 should cover the truth
    assert covered >= 42


def test_bradley_terry_anchor_and_standard_errors():
    true = np.array([0.0, 200.0, 400.0])
    score, games = synthetic_results(true, 4000, np.random.default_rng(1))
    fit = fit_bradley_terry(score, games, anchor=0)
    assert fit.elo[0] == 0.0 and fit.se[0] == 0.0
    assert fit.elo[1] == pytest.approx(200, abs=25) and fit.elo[2] == pytest.approx(400, abs=30)
    # more games, tighter intervals
    small = fit_bradley_terry(*synthetic_results(true, 100, np.random.default_rng(1)), anchor=0)
    assert small.se[2] > 3 * fit.se[2]


def test_bradley_terry_undefeated_stays_finite_and_ordered():
    # 0 beats everyone, 1 beats 2, never a loss for 0
    score = np.array([[0, 20, 20], [0, 0, 15], [0, 5, 0]], dtype=float)
    games = np.array([[0, 20, 20], [20, 0, 20], [20, 20, 0]], dtype=float)
    fit = fit_bradley_terry(score, games)
    assert np.all(np.isfinite(fit.elo)) and np.all(np.isfinite(fit.ci95))
    assert fit.elo[0] > fit.elo[1] > fit.elo[2]
    assert fit.elo.sum() == pytest.approx(0.0, abs=1e-6)


def test_bradley_terry_rejects_inconsistent_matrices():
    with pytest.raises(ValueError):
        fit_bradley_terry(np.array([[0, 3], [3, 0]]), np.array([[0, 5], [5, 0]]))


def test_seat_assignments_cover_every_ordered_pair_of_seats():
    assert seat_assignments(2) == [(0, 1), (1, 0)]
    assert len(seat_assignments(3)) == 6 and len(set(seat_assignments(3))) == 6


def test_tic_tac_toe_round_robin_counts_and_ranks():
    game = games.make("tic_tac_toe")
    result = play_tournament(game, ["random", "minimax", "heuristic"], games_per_pair=10, seed=0)
    g = result.games
    assert (g[~np.eye(3, dtype=bool)] == 10).all() and (np.diag(g) == 0).all()
    assert result.wins[0, 1] == 0  # random never beats perfect play
    ranked = [r["spec"] for r in result.ranked_rows()]
    assert ranked[-1] == "random"
    m = result.score_matrix
    off = ~np.eye(3, dtype=bool)
    assert np.allclose((m + m.T)[off], 1.0) and np.isnan(np.diag(m)).all()
    # deterministic from the seed
    again = play_tournament(game, ["random", "minimax", "heuristic"], games_per_pair=10, seed=0)
    assert (again.wins == result.wins).all() and (again.draws == result.draws).all()


def test_both_seats_are_played():
    """Two copies of a deterministic agent: the same seat wins every game, so each copy wins
    exactly the games in which it holds that seat, half of them."""
    from agents.base import Agent

    class FirstLegal(Agent):
        def act(self, states):
            return np.array([s.legal_actions()[0] for s in states])

    game = games.make("connect_four")

    def make(spec, game, rng):
        from agents import make as real

        return FirstLegal() if spec == "first" else real(spec, game, rng)

    result = play_tournament(game, ["first", "first"], games_per_pair=4, seed=0, make_agent=make)
    assert result.wins[0, 1] == 2 and result.wins[1, 0] == 2


def test_incan_gold_pairs_with_a_filler():
    game = games.make("incan_gold")
    result = play_tournament(game, ["random", "heuristic"], games_per_pair=6, seed=0, filler="random")
    assert result.filler == "random"
    assert result.games[0, 1] == 6
    assert result.wins[1, 0] + result.draws[0, 1] + result.wins[0, 1] == 6


def test_cli_tournament_writes_files_and_one_json_object(tmp_path, capsys):
    out = tmp_path / "t"
    code = cli_main(
        [
            "tournament",
            "tic_tac_toe",
            "random",
            "minimax",
            "mcts:50",
            "--games",
            "4",
            "--seed",
            "3",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    stdout = capsys.readouterr().out
    d = json.loads(stdout)  # exactly one object
    assert stdout.count("\n") == 1
    assert d["game"] == "tic_tac_toe" and d["games"] == 4 and d["seed"] == 3
    assert [a["spec"] for a in d["agents"]] == ["random", "minimax", "mcts:50"]
    for a in d["agents"]:
        assert a["elo_ci95"][0] <= a["elo"] <= a["elo_ci95"][1]
        assert a["ci95"][0] <= a["score"] <= a["ci95"][1]
        assert a["games"] == 8
    for name in ("win_matrix.csv", "win_matrix.json", "ratings.csv", "tournament.json", "heatmap.png"):
        assert (out / name).is_file()
    assert (out / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = (out / "win_matrix.csv").read_text().splitlines()
    assert rows[0].split(",")[1:] == ["random", "minimax", "mcts:50"] and len(rows) == 4
    assert json.loads((out / "win_matrix.json").read_text())["games"][0][1] == 4


def test_cli_table_output(tmp_path, capsys):
    code = cli_main(["tournament", "tic_tac_toe", "random", "heuristic", "--games", "2", "--out", str(tmp_path / "x")])
    assert code == 0
    out = capsys.readouterr().out
    assert "elo" in out and "heuristic" in out and "random" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tournament", "connect_four", "random", "mcts:many", "--games", "2"], "bad mcts spec"),
        (["tournament", "connect_four", "random", "--games", "2"], "at least two"),
        (["tournament", "connect_four", "random", "nonsense", "--games", "2"], "unknown agent spec"),
        (["tournament", "chess", "random", "random", "--games", "2"], "unknown game"),
        (["tournament", "connect_four", "random", "heuristic", "--games", "2", "--anchor", "minimax"], "anchor"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, argv, message):
    code = cli_main(argv + ["--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_an_agent_given_twice_has_two_names_in_the_table():
    game = games.make("tic_tac_toe")
    table = play_tournament(game, ["random", "random", "heuristic"], 4, seed=0).table()
    names = [line.split()[1] for line in table.splitlines()[2:]]
    assert (
        sorted(" ".join(line.split()[1:3]) for line in table.splitlines()[2:] if "random" in line)
        == [
            "random #1",
            "random #2",
        ]
        and len(names) == 3
    )
