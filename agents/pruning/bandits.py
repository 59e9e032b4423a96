"""UCB1 on Bernoulli bandits: the synthetic datasets of the pruning networks (Papagiannis et al. 2022).

    sims = simulate_ucb(means, steps=1500, rng=rng, checkpoints=[100, 200])   # visits at checkpoints
    safety, probability = make_datasets(BanditConfig(arms="uniform"), seed=0)

The simulator plays UCB1 exactly as our UCT does at a node: rewards are +1 / -1 (a Bernoulli win or
loss, so Q lies in [-1, 1] like a game return), every arm is tried once first (in index order: arm
means are i.i.d., so the order does not matter), then `Q + c * sqrt(ln n / n_i)` with ties to the
lower index. The recommended arm is the most visited one (ties: higher mean, then lower index).

Labels, per (number of arms K, iterations n), over `simulations` independent bandits:
    safety       the minimum number of arms, ranked as UCT ranks root actions (most visits, then
                 higher mean), that contains the truly best arm in EVERY simulation (the paper's
                 "safe" action space after pruning; K when nothing can be pruned)
    probability  the fraction of simulations in which the recommended arm is the truly best one

Both labels come from the same simulations (one run per K gives every checkpoint), a saving over
the paper, which drew the two datasets separately. Arm means (the Bernoulli p) come from a uniform
distribution on [0, 1] or from a two-component mixture fitted to our own MCTS root statistics
(`fit_bimodal`, `collect_root_values`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import agents
from agents.search.uct import MCTSAgent
from games import UserError


@dataclass(frozen=True)
class BanditConfig:
    arms: str = "uniform"  # "uniform" or "bimodal"
    bimodal: tuple[float, ...] = ()  # (weight, mean, sd) x 2 for "bimodal"; see fit_bimodal
    min_arms: int = 3
    max_arms: int = 50
    min_iterations: int = 100  # safety dataset: iterations run before pruning
    max_iterations: int = 1500
    iteration_points: int = 98  # per K, as the paper (4 704 tuples for K in 3..50)
    simulations: int = 1000  # bandits per K
    c: float = 1.4  # UCB1 constant of our UCT (returns in [-1, 1])


@dataclass
class Datasets:
    safety_x: np.ndarray  # (rows, 2): iterations run, arms
    safety_y: np.ndarray  # (rows,): arms to keep
    probability_x: np.ndarray  # (rows, 2): remaining iterations, arms
    probability_y: np.ndarray  # (rows,): chance that UCB1 recommends the best arm
    meta: dict = field(default_factory=dict)


def simulate_ucb(means: np.ndarray, steps: int, rng: np.random.Generator, checkpoints, c: float = 1.4):
    """UCB1 on `means.shape[0]` independent bandits with `means.shape[1]` Bernoulli arms each.

    Returns {checkpoint: (visits, sums)} after exactly `checkpoint` pulls (0 <= checkpoint <= steps),
    visits an int array (S, K), sums the total reward (+1/-1) of each arm."""
    means = np.asarray(means, dtype=np.float64)
    s, k = means.shape
    wanted = sorted(set(int(t) for t in checkpoints))
    if wanted and not 0 <= wanted[0] <= wanted[-1] <= steps:
        raise ValueError("checkpoints must lie in [0, steps]")
    visits = np.zeros((s, k), dtype=np.int64)
    sums = np.zeros((s, k))
    out = {}
    rows = np.arange(s)
    nxt = 0
    for t in range(steps + 1):
        while nxt < len(wanted) and wanted[nxt] == t:
            out[t] = (visits.copy(), sums.copy())
            nxt += 1
        if t == steps or nxt == len(wanted):
            break
        if t < k:
            arm = np.full(s, t)
        else:
            ucb = sums / visits + c * np.sqrt(np.log(t) / visits)
            arm = np.argmax(ucb, axis=1)
        reward = np.where(rng.random(s) < means[rows, arm], 1.0, -1.0)
        visits[rows, arm] += 1
        sums[rows, arm] += reward
    return out


def best_arm_rank(means: np.ndarray, visits: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """1-based rank of each bandit's truly best arm among its arms ranked by (visits, mean)."""
    best = np.argmax(means, axis=1)
    rows = np.arange(means.shape[0])
    q = np.where(visits > 0, sums / np.maximum(visits, 1), -np.inf)
    bv, bq = visits[rows, best][:, None], q[rows, best][:, None]
    idx = np.arange(means.shape[1])[None, :]
    ahead = (visits > bv) | ((visits == bv) & ((q > bq) | ((q == bq) & (idx < best[:, None]))))
    return ahead.sum(axis=1) + 1


def sample_means(config: BanditConfig, shape, rng: np.random.Generator) -> np.ndarray:
    """Arm means (Bernoulli p) from the configured distribution."""
    if config.arms == "uniform":
        return rng.random(shape)
    if config.arms == "bimodal":
        if len(config.bimodal) != 6:
            raise UserError("bimodal arms need (weight, mean, sd) for two components; run fit_bimodal")
        w0, m0, s0, _, m1, s1 = config.bimodal
        first = rng.random(shape) < w0
        x = np.where(first, rng.normal(m0, s0, shape), rng.normal(m1, s1, shape))
        return np.clip(x, 0.0, 1.0)
    raise UserError(f"arm distribution must be 'uniform' or 'bimodal', got {config.arms!r}")


def make_datasets(config: BanditConfig, seed: int, progress=None) -> Datasets:
    """Both datasets, reproducible from `seed`; `progress(done, total)` after each K if given."""
    rng = np.random.default_rng(seed)
    arm_counts = range(config.min_arms, config.max_arms + 1)
    safety_points = np.unique(
        np.linspace(config.min_iterations, config.max_iterations, config.iteration_points).round().astype(int)
    )
    # probability: remaining iterations from 0 (pick at random) to the maximum
    prob_points = np.unique(np.linspace(0, config.max_iterations, config.iteration_points).round().astype(int))
    checkpoints = np.union1d(safety_points, prob_points)
    sx, sy, px, py = [], [], [], []
    for done, k in enumerate(arm_counts, 1):
        means = sample_means(config, (config.simulations, k), rng)
        runs = simulate_ucb(means, int(checkpoints[-1]), rng, checkpoints, config.c)
        for t in checkpoints:
            visits, sums = runs[int(t)]
            rank = best_arm_rank(means, visits, sums)
            if t in safety_points:
                sx.append((t, k))
                sy.append(rank.max())
            if t in prob_points:
                px.append((t, k))
                py.append(np.mean(rank == 1))
        if progress is not None:
            progress(done, len(arm_counts))
    meta = {"arms": config.arms, "bimodal": list(config.bimodal), "seed": seed, "simulations": config.simulations}
    return Datasets(
        np.array(sx, dtype=np.float64),
        np.array(sy, dtype=np.float64),
        np.array(px, dtype=np.float64),
        np.array(py, dtype=np.float64),
        meta,
    )


# ------------------------------------------------------------------------------------------------
# The bimodal arm distribution, fitted to our own MCTS root statistics.


def collect_root_values(game, spec: str, games: int, seed: int, min_visits: int = 10) -> np.ndarray:
    """Self-play of `spec` (an mcts spec) on `game`: the mean value of every root action searched
    with at least `min_visits` visits, mapped from returns [-1, 1] to win chances [0, 1]."""
    rng = np.random.default_rng(seed)
    agent = agents.make(spec, game, np.random.default_rng(int(rng.integers(2**63))))
    if not isinstance(agent, MCTSAgent):
        raise UserError(f"collect_root_values needs an mcts spec, got {spec!r}")
    values: list[float] = []
    for _ in range(games):
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(2**63))))
        while not state.is_terminal():
            result = agent.search(state, np.random.default_rng(int(rng.integers(2**63))))
            values += [(result.values[a] + 1.0) / 2.0 for a, n in result.visits.items() if n >= min_visits]
            state.apply_action(result.action)
    return np.clip(np.array(values), 0.0, 1.0)


def fit_bimodal(x: np.ndarray, iterations: int = 200) -> tuple[float, ...]:
    """Two-component Gaussian mixture by EM (deterministic start at the quartiles):
    (weight0, mean0, sd0, weight1, mean1, sd1), component 0 the lower one."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 4:
        raise UserError("fit_bimodal needs at least 4 values")
    mu = np.quantile(x, [0.25, 0.75])
    sd = np.full(2, max(x.std() / 2, 1e-3))
    w = np.array([0.5, 0.5])
    for _ in range(iterations):
        dens = w / sd * np.exp(-0.5 * ((x[:, None] - mu) / sd) ** 2)
        resp = dens / np.maximum(dens.sum(axis=1, keepdims=True), 1e-300)
        nk = resp.sum(axis=0) + 1e-12
        w = nk / x.size
        mu = (resp * x[:, None]).sum(axis=0) / nk
        sd = np.sqrt((resp * (x[:, None] - mu) ** 2).sum(axis=0) / nk)
        sd = np.maximum(sd, 1e-3)
    order = np.argsort(mu)
    return tuple(float(v) for i in order for v in (w[i], mu[i], sd[i]))
