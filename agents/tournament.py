"""Round-robin tournaments with Bradley-Terry (Elo) ratings, a win-rate matrix and a heatmap.

    result = play_tournament(game, ["random", "heuristic", "mcts:400"], games_per_pair=40, seed=0)
    result.write(out_dir)        # win_matrix.csv/json, ratings.csv, tournament.json, heatmap.png

Pairings: every pair of agents plays `games_per_pair` games. Games cycle through every seat
assignment of the pair: for two-player games, both seats; for games with more seats (Incan Gold)
the pair takes every ordered pair of distinct seats (n * (n - 1) assignments) and a fixed filler
agent (`heuristic` by default) fills the other seats. The filler is one and the same opponent for
every pair, so it shifts nobody's ratings. Each block of assignments shares one chance seed, so
the luck of the deal is mirrored across the seats. Use a multiple of the number of assignments for
balanced seats (2 for two players, 6 for three).

A game counts, for the pair, as a win for the agent with the higher return, a draw on equal
returns (for Incan Gold, two losers to the filler also draw with each other).

Ratings: the Bradley-Terry model P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400)) on the Elo
scale, draws counting half a win, fitted by maximum likelihood (Newton's method). One virtual draw
per pairing (a weak prior) keeps an undefeated agent's rating finite. The 95 % intervals come from
the Fisher information at the fit (the inverse of the Hessian), relative to the anchor: the mean
of all ratings (0) by default, or an agent whose rating is pinned at 0.

One module: the schedule, the play and the ratings of a tournament share its seating and its
records, and a reader checks them together.
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import agents as agents_pkg
from agents.arena import play_states
from agents.panel import seat_members
from agents.stats import Z95, Record
from games import Game, UserError
from games.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength
PRIOR_DRAWS = 1.0
BATCH = 64  # games played in lock-step at once (progress is reported per batch)


# --------------------------------------------------------------------------------------------
# Bradley-Terry


@dataclass
class Ratings:
    elo: np.ndarray  # per agent, anchored (mean 0, or the anchor at 0)
    ci95: np.ndarray  # (k, 2) lower and upper bound
    se: np.ndarray  # standard error (Elo points)
    anchor: int | None


def fit_bradley_terry(
    score: np.ndarray,
    games: np.ndarray,
    prior_draws: float = PRIOR_DRAWS,
    anchor: int | None = None,
    max_iter: int = 100,
) -> Ratings:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale.

    `score[i, j]`: points of i against j (wins + half the draws); `games[i, j]`: games between
    them (symmetric). `prior_draws` virtual draws are added to every pairing that was played."""
    score = np.asarray(score, dtype=float)
    games = np.asarray(games, dtype=float)
    k = score.shape[0]
    if score.shape != (k, k) or games.shape != (k, k):
        raise ValueError("score and games must be square matrices of the same size")
    if not np.allclose(games, games.T):
        raise ValueError("games must be symmetric")
    if not np.allclose(score + score.T, games):
        raise ValueError("score[i, j] + score[j, i] must equal games[i, j]")
    played = (games > 0) & ~np.eye(k, dtype=bool)
    s = score + 0.5 * prior_draws * played
    n = games + prior_draws * played
    np.fill_diagonal(s, 0.0)
    np.fill_diagonal(n, 0.0)
    if k > 1 and not _connected(played):
        raise UserError("cannot rate agents that are not linked by games (the pairings are disconnected)")
    r = np.zeros(k)
    ones = np.ones((k, k))
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))  # p[i, j] = P(i beats j)
        grad = (s - n * p).sum(axis=1)
        w = n * p * (1.0 - p)
        lap = np.diag(w.sum(axis=1)) - w  # minus the Hessian: a graph Laplacian, null space 1
        step = np.linalg.solve(lap + ones / k, grad)
        r += step
        r -= r.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))
    w = n * p * (1.0 - p)
    lap = np.diag(w.sum(axis=1)) - w
    cov = np.linalg.pinv(lap)  # covariance of the mean-zero ratings (Laplace approximation)
    if anchor is not None:
        r = r - r[anchor]
        var = np.diag(cov) + cov[anchor, anchor] - 2.0 * cov[:, anchor]
    else:
        var = np.diag(cov)
    se = np.sqrt(np.maximum(var, 0.0)) * ELO_PER_NAT
    elo = r * ELO_PER_NAT
    ci = np.stack([elo - Z95 * se, elo + Z95 * se], axis=1)
    return Ratings(elo, ci, se, anchor)


def _connected(adj: np.ndarray) -> bool:
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adj[i]):
            if j not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return len(seen) == adj.shape[0]


def expected_score(elo_i: float, elo_j: float) -> float:
    """P(i beats j) (draws half) under the fitted model."""
    return 1.0 / (1.0 + 10.0 ** ((elo_j - elo_i) / 400.0))


# --------------------------------------------------------------------------------------------
# Playing the pairings


def seat_assignments(num_players: int) -> list[tuple[int, int]]:
    """Every (seat of the first agent, seat of the second) with distinct seats."""
    return [(a, b) for a in range(num_players) for b in range(num_players) if a != b]


@dataclass
class TournamentResult:
    game: str
    specs: list[str]
    games_per_pair: int
    seed: int
    filler: str | None
    wins: np.ndarray  # wins[i, j]: games i won against j
    draws: np.ndarray  # symmetric
    ratings: Ratings
    seconds: float = 0.0
    labels: list[str] = field(default_factory=list)

    @property
    def games(self) -> np.ndarray:
        return self.wins + self.wins.T + self.draws

    @property
    def score_matrix(self) -> np.ndarray:
        """score[i, j] = (wins + draws / 2) / games of i against j; NaN on the diagonal."""
        g = self.games
        with np.errstate(invalid="ignore", divide="ignore"):
            m = (self.wins + 0.5 * self.draws) / g
        m[g == 0] = np.nan
        return m

    def agent_rows(self) -> list[dict]:
        """One dict per agent, in the order given: its Elo with that rating's interval (elo_ci95)
        beside its record's one JSON form (`Record.to_dict`) and win rate."""
        rows = []
        for i, spec in enumerate(self.specs):
            rec = Record(int(self.wins[i].sum()), int(self.draws[i].sum()), int(self.wins[:, i].sum()))
            rows.append(
                {
                    "spec": spec,
                    "label": self.labels[i],
                    "elo": float(self.ratings.elo[i]),
                    "elo_ci95": [float(self.ratings.ci95[i, 0]), float(self.ratings.ci95[i, 1])],
                    **rec.to_dict(),
                    "win_rate": rec.win_rate,
                }
            )
        return rows

    def as_dict(self) -> dict:
        m = self.score_matrix
        return {
            "game": self.game,
            "games": self.games_per_pair,
            "seed": self.seed,
            "filler": self.filler,
            "anchor": None if self.ratings.anchor is None else self.specs[self.ratings.anchor],
            "agents": self.agent_rows(),
            "matrix": {
                "specs": list(self.specs),
                "score": [[None if math.isnan(x) else float(x) for x in row] for row in m],
                "wins": self.wins.astype(int).tolist(),
                "draws": self.draws.astype(int).tolist(),
                "games": self.games.astype(int).tolist(),
            },
            "seconds": self.seconds,
        }

    # files ----------------------------------------------------------------------------------
    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """win_matrix.csv, win_matrix.json, ratings.csv, tournament.json, heatmap.png (atomic)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {
            "win_matrix_csv": out / "win_matrix.csv",
            "win_matrix_json": out / "win_matrix.json",
            "ratings_csv": out / "ratings.csv",
            "tournament_json": out / "tournament.json",
            "heatmap_png": out / "heatmap.png",
        }
        d = self.as_dict()
        atomic_write_text(paths["win_matrix_csv"], self._matrix_csv())
        atomic_write_json(paths["win_matrix_json"], d["matrix"])
        atomic_write_text(paths["ratings_csv"], self._ratings_csv())
        atomic_write_json(paths["tournament_json"], d)
        atomic_write_bytes(paths["heatmap_png"], self.heatmap_png())
        return paths

    def _matrix_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["row_vs_column_score"] + self.specs)
        for spec, row in zip(self.specs, self.score_matrix):
            w.writerow([spec] + ["" if math.isnan(x) else f"{x:.4f}" for x in row])
        return buf.getvalue()

    def _ratings_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        head = ["rank", "spec", "elo", "elo_ci95_low", "elo_ci95_high", "games", "wins", "draws", "losses", "score"]
        w.writerow(head)
        for rank, row in enumerate(self.ranked_rows(), 1):
            lo, hi = row["elo_ci95"]
            w.writerow(
                [
                    rank,
                    row["spec"],
                    f"{row['elo']:.1f}",
                    f"{lo:.1f}",
                    f"{hi:.1f}",
                    row["games"],
                    row["wins"],
                    row["draws"],
                    row["losses"],
                    f"{row['score']:.4f}",
                ]
            )
        return buf.getvalue()

    def ranked_rows(self) -> list[dict]:
        return sorted(self.agent_rows(), key=lambda r: -r["elo"])

    def table(self) -> str:
        """The ratings table a user reads in the terminal."""
        seen: dict[str, int] = {}
        names = []
        for spec in self.specs:  # an agent given twice is told apart by its place in the list: random #1, #2
            seen[spec] = seen.get(spec, 0) + 1
            names.append(spec if self.specs.count(spec) == 1 else f"{spec} #{seen[spec]}")
        rows = sorted(({**r, "name": n} for r, n in zip(self.agent_rows(), names)), key=lambda r: -r["elo"])
        width = max(8, *(len(r["name"]) for r in rows)) + 2
        anchor = "mean of all agents = 0" if self.ratings.anchor is None else f"{self.specs[self.ratings.anchor]} = 0"
        filler = f", filler {self.filler}" if self.filler else ""
        lines = [
            f"{self.game}: {len(self.specs)} agents, {self.games_per_pair} games per pair{filler}, seed {self.seed}, "
            f"{self.seconds:.1f} s; Elo anchored at {anchor}",
            f"{'rank':>4}  {'agent':<{width}}{'elo':>7}  {'95% CI':<17}{'games':>6}{'wins':>6}{'draws':>6}"
            f"{'losses':>7}{'score':>7}",
        ]
        for rank, r in enumerate(rows, 1):
            lo, hi = r["elo_ci95"]
            lines.append(
                f"{rank:>4}  {r['name']:<{width}}{r['elo']:>7.0f}  [{lo:>6.0f}, {hi:>6.0f}] {r['games']:>6}"
                f"{r['wins']:>6}{r['draws']:>6}{r['losses']:>7}{r['score']:>7.3f}"
            )
        return "\n".join(lines)

    def heatmap_png(self) -> bytes:
        """Row agent's score against the column agent (wins + draws / 2), agents ordered by rating."""
        from matplotlib import colormaps
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        order = np.argsort(-self.ratings.elo, kind="stable")
        m = self.score_matrix[np.ix_(order, order)]
        g = self.games[np.ix_(order, order)]
        labels = [f"{self.labels[i]}\n({self.ratings.elo[i]:+.0f})" for i in order]
        k = len(order)
        size = max(4.5, 0.95 * k + 2.0)
        fig = Figure(figsize=(size + 1.2, size))
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        cmap = colormaps["RdBu"].with_extremes(bad="#dddddd")
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=0.0, vmax=1.0)
        font = 10 if k <= 6 else 8 if k <= 10 else 6
        for i in range(k):
            for j in range(k):
                if i == j or g[i, j] == 0:
                    continue
                x = m[i, j]
                color = "white" if abs(x - 0.5) > 0.25 else "black"
                ax.text(j, i, f"{100 * x:.0f}%\nn={int(g[i, j])}", ha="center", va="center", color=color, fontsize=font)
        ax.set_xticks(range(k), labels, rotation=45, ha="right", fontsize=font)
        ax.set_yticks(range(k), labels, fontsize=font)
        ax.set_xlabel("opponent (Elo)")
        ax.set_ylabel("agent (Elo)")
        filler = f", filler {self.filler}" if self.filler else ""
        ax.set_title(f"{self.game}: score of row vs column\n{self.games_per_pair} games per pair{filler}", fontsize=11)
        cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cbar.set_label("score (win = 1, draw = 1/2)")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=120)
        return buf.getvalue()


def _labels(specs: Sequence[str]) -> list[str]:
    """Short, unique names for plots: a path becomes its last two parts; repeats get #2, #3."""
    out = []
    for spec in specs:
        label = spec
        if "/" in spec:
            label = "/".join(Path(spec).parts[-2:])
        if len(label) > 28:
            label = "…" + label[-27:]
        out.append(label)
    seen: dict[str, int] = {}
    for i, label in enumerate(out):
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            out[i] = f"{label} #{seen[label]}"
    return out


def play_tournament(
    game: Game,
    specs: Sequence[str],
    games_per_pair: int,
    seed: int = 0,
    filler: str = "heuristic",
    anchor: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    make_agent: Callable | None = None,
) -> TournamentResult:
    """Every pair of `specs` plays `games_per_pair` games (see the module docstring); returns the
    win/draw counts and the fitted ratings. `progress(done, total, what)` after each batch."""
    make_agent = make_agent or agents_pkg.make_panel
    specs = [str(s) for s in specs]
    k = len(specs)
    if k < 2:
        raise UserError("a tournament needs at least two agent specs")
    if games_per_pair < 1:
        raise UserError("a tournament needs at least 1 game per pair")
    anchor_index = None
    if anchor is not None:
        if anchor not in specs:
            raise UserError(f"anchor {anchor!r} is not one of the agents ({', '.join(specs)})")
        anchor_index = specs.index(anchor)
    t0 = time.perf_counter()
    n = game.num_players
    players = [make_agent(spec, game, np.random.default_rng([seed, 1000 + i])) for i, spec in enumerate(specs)]
    filler_agent = make_agent(filler, game, np.random.default_rng([seed, 999])) if n > 2 else None
    assignments = seat_assignments(n)
    wins = np.zeros((k, k))
    draws = np.zeros((k, k))
    done, total = 0, k * (k - 1) // 2 * games_per_pair
    for i in range(k):
        for j in range(i + 1, k):
            pair_seed = int(np.random.SeedSequence([seed, i, j]).generate_state(1)[0])
            roster = [players[i], players[j]] + ([filler_agent] if filler_agent is not None else [])
            batch = min([BATCH] + [a.games_at_once for a in roster if getattr(a, "games_at_once", None)])
            for start in range(0, games_per_pair, batch):
                idx = range(start, min(games_per_pair, start + batch))
                seats = []
                for g in idx:
                    si, sj = assignments[g % len(assignments)]
                    row = [2] * n
                    row[si], row[sj] = 0, 1
                    seats.append((row, si, sj))
                deals = [g // len(assignments) for g in idx]
                states = [game.new_initial_state(np.random.default_rng([pair_seed, d])) for d in deals]
                members, rows = seat_members(roster, [row for row, _, _ in seats], deals, pair_seed)
                play_states(states, rows, members)
                for s, (_, si, sj) in zip(states, seats):
                    r = s.returns()
                    if r[si] > r[sj]:
                        wins[i, j] += 1
                    elif r[sj] > r[si]:
                        wins[j, i] += 1
                    else:
                        draws[i, j] += 1
                        draws[j, i] += 1
                done += len(idx)
                if progress is not None:
                    progress(done, total, f"tournament {game.name}")
    games = wins + wins.T + draws
    ratings = fit_bradley_terry(wins + 0.5 * draws, games, anchor=anchor_index)
    return TournamentResult(
        game=game.name,
        specs=specs,
        games_per_pair=games_per_pair,
        seed=seed,
        filler=filler if n > 2 else None,
        wins=wins,
        draws=draws,
        ratings=ratings,
        seconds=time.perf_counter() - t0,
        labels=_labels(specs),
    )
