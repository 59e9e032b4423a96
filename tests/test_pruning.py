"""MCTS with pruning networks: the UCB1 bandit simulator's labels on hand-worked cases, the
networks' files, Algorithm 1's schedule, and the `prune=` hook of agents/search/uct.py."""

import time

import numpy as np
import pytest

import agents
import games
from agents.pruning import bandits
from agents.pruning.networks import MLP, PruningNetworks, load, save
from agents.pruning.schedule import PruneSchedule, ScheduleConfig
from agents.search.mcts_spec import parse_spec
from games import UserError


# --- the bandit simulator -------------------------------------------------------------------
def test_ucb_on_certain_arms_worked_by_hand():
    # p = (1, 0, 0): rewards are +1, -1, -1 for sure. Each arm once (t = 0, 1, 2); at t = 3 arm 0's
    # bound 1 + 1.4 sqrt(ln 3) = 2.47 beats -1 + 1.4 sqrt(ln 3) = 0.47, so arm 0 again.
    means = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    runs = bandits.simulate_ucb(means, 4, np.random.default_rng(0), [0, 2, 3, 4])
    visits, sums = runs[3]
    assert visits.tolist() == [[1, 1, 1], [1, 1, 1]]
    assert sums.tolist() == [[1, -1, -1], [-1, -1, 1]]
    assert runs[4][0].tolist() == [[2, 1, 1], [1, 1, 2]]
    # ranks of the best arm by (visits, mean, lower index)
    assert bandits.best_arm_rank(means, *runs[4]).tolist() == [1, 1]
    assert bandits.best_arm_rank(means, *runs[3]).tolist() == [1, 1]  # equal visits: higher mean
    assert bandits.best_arm_rank(means, *runs[2]).tolist() == [1, 3]  # arm 2 not yet pulled
    assert bandits.best_arm_rank(means, *runs[0]).tolist() == [1, 3]  # nothing pulled: by index


def test_ucb_switches_to_a_losing_arm_when_the_bound_says_so():
    # p = (1, 0): arm 1 (n = 1, Q = -1) is pulled again at the first t with
    # -1 + 1.4 sqrt(ln t) > 1 + 1.4 sqrt(ln t / (t - 1)); by hand: t = 25 (ln 25 = 3.219):
    # -1 + 2.512 = 1.512 < 1 + 1.4 * 0.3662 = 1.513, no; t = 26 (ln 26 = 3.258): 1.527 > 1.505, yes.
    t = 26
    runs = bandits.simulate_ucb(np.array([[1.0, 0.0]]), t + 1, np.random.default_rng(0), [t, t + 1])
    assert runs[t][0].tolist() == [[t - 1, 1]]
    assert runs[t + 1][0].tolist() == [[t - 1, 2]]


def test_labels_are_the_worst_rank_and_the_hit_rate():
    means = np.array([[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]])
    visits = np.array([[5, 3, 2], [2, 5, 3]])
    sums = np.array([[3.0, 1.0, -2.0], [2.0, 3.0, 1.0]])
    rank = bandits.best_arm_rank(means, visits, sums)
    assert rank.tolist() == [1, 3]  # second bandit: arm 0 has the fewest visits
    assert (rank.max(), np.mean(rank == 1)) == (3, 0.5)  # the safety label, the probability label


def test_datasets_are_reproducible_and_sensible():
    config = bandits.BanditConfig(max_arms=5, simulations=400, max_iterations=300, iteration_points=7)
    a = bandits.make_datasets(config, seed=3)
    b = bandits.make_datasets(config, seed=3)
    assert np.array_equal(a.safety_y, b.safety_y) and np.array_equal(a.probability_y, b.probability_y)
    assert a.safety_x[:, 0].min() == 100 and set(a.safety_x[:, 1]) == {3, 4, 5}
    assert np.all((a.safety_y >= 1) & (a.safety_y <= a.safety_x[:, 1]))
    # with no pull at all the recommendation is arm 0: right 1/K of the time
    for k in (3, 5):
        p0 = a.probability_y[(a.probability_x[:, 0] == 0) & (a.probability_x[:, 1] == k)][0]
        assert abs(p0 - 1 / k) < 0.07
        late = a.probability_y[(a.probability_x[:, 0] == 300) & (a.probability_x[:, 1] == k)][0]
        assert late > p0 + 0.3  # 300 pulls find the best arm far more often


def test_bimodal_fit_recovers_two_modes():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0.2, 0.05, 600), rng.normal(0.7, 0.1, 400)])
    w0, m0, s0, w1, m1, s1 = bandits.fit_bimodal(x)
    assert abs(w0 - 0.6) < 0.05 and abs(m0 - 0.2) < 0.02 and abs(m1 - 0.7) < 0.03
    assert abs(s0 - 0.05) < 0.02 and abs(s1 - 0.1) < 0.03
    means = bandits.sample_means(bandits.BanditConfig(arms="bimodal", bimodal=(w0, m0, s0, w1, m1, s1)), 5000, rng)
    assert 0 <= means.min() and means.max() <= 1 and abs(np.mean(means < 0.45) - 0.6) < 0.03


# --- networks and the schedule ----------------------------------------------------------------
def linear_nets(keep: float, prob_slope: float = 1.0, prob_bias: float = 0.0) -> PruningNetworks:
    """Safety outputs `keep` everywhere; Probability = bias + slope * remaining / 1000 (linear)."""
    safety = MLP([np.zeros((2, 1))], [np.array([keep])])
    probability = MLP([np.array([[prob_slope], [0.0]])], [np.array([prob_bias])])
    return PruningNetworks(safety, probability)


def test_networks_round_trip_and_clip(tmp_path):
    nets = linear_nets(2.4)
    save(tmp_path / "n.npz", nets)
    back = load(tmp_path / "n.npz")
    assert back.keep([150, 900], 10).tolist() == [2, 2]
    assert back.keep([150], 1).tolist() == [1]  # never more than the arms, never fewer than 1
    assert np.allclose(back.probability([0, 500, 5000], [4, 4, 4]), [0.0, 0.5, 1.0])  # clamped range
    with pytest.raises(UserError):
        load(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(UserError):
        load(tmp_path / "bad.npz")


def test_schedule_plans_prunes_and_keeps_the_most_visited():
    # probability falls with later pruning: prune at the first chance (threshold), keep 2
    s = PruneSchedule(linear_nets(2.0), actions=[0, 1, 2, 3], total=300)
    assert s.next_at == 100
    visits = {0: 10, 1: 50, 2: 30, 3: 10}
    values = {0: 0.9, 1: 0.1, 2: 0.0, 3: -0.5}
    assert s.update(100, visits, values) == {1, 2}  # by visits, not by value
    assert s.pruned == {0, 3} and s.events == [(100, 4, 2)]
    assert s.next_at is None  # 2 actions left: below min_arms
    # ties on visits go to the higher value
    s = PruneSchedule(linear_nets(1.0), actions=[0, 1, 2], total=300)
    assert s.update(100, {0: 30, 1: 30, 2: 30}, {0: 0.1, 1: 0.3, 2: 0.2}) == {1}
    # a Probability Network that rises with later pruning: the last point is chosen
    s = PruneSchedule(linear_nets(2.0, prob_slope=-1.0, prob_bias=1.0), actions=[0, 1, 2, 3], total=300)
    assert (s.next_at, s.keep) == (299, 2)
    # a prune that keeps all is no event worth planning after the end; too small a budget: no plan
    assert PruneSchedule(linear_nets(2.0), actions=[0, 1, 2], total=100).next_at is None


def test_soft_schedule_brings_back_an_action_that_no_longer_looks_worse():
    s = PruneSchedule(linear_nets(3.0), actions=[0, 1, 2, 3, 4], total=1000, config=ScheduleConfig(soft=True))
    s.update(100, {0: 40, 1: 30, 2: 20, 3: 5, 4: 5}, {0: 0.5, 1: 0.4, 2: 0.1, 3: 0.2, 4: -0.6})
    assert s.active == {0, 1, 2} and s.pruned == {3, 4}
    assert s.next_at == 200  # soft: check again after the threshold
    # action 2's value dropped below action 3's frozen 0.2: 3 comes back, 4 stays out
    s.update(200, {0: 90, 1: 70, 2: 30, 3: 5, 4: 5}, {0: 0.5, 1: 0.4, 2: 0.0, 3: 0.2, 4: -0.6})
    assert 3 in s.active and s.pruned == {4}
    hard = PruneSchedule(linear_nets(3.0), actions=[0, 1, 2, 3, 4], total=1000)
    hard.update(100, {0: 40, 1: 30, 2: 20, 3: 5, 4: 5}, {0: 0.5, 1: 0.4, 2: 0.1, 3: 0.2, 4: -0.6})
    assert hard.next_at is None  # 3 left, keep 3: nothing more to gain


# --- the mcts hook ----------------------------------------------------------------------------
def kittens_state(seed=1):  # seed 1: three legal actions at the start
    g = games.make("exploding_kittens", preset="paper")
    return g, g.new_initial_state(np.random.default_rng(seed))


def connect_four_state():
    g = games.make("connect_four")
    s = g.new_initial_state()
    for a in (3, 3, 2):
        s.apply_action(a)
    return g, s


def test_spec_items():
    cfg = parse_spec("mcts:300,prune=uniform,soft=1")
    assert (cfg.prune, cfg.soft) == ("uniform", True)
    assert parse_spec("mcts:300,prune=none").prune is None
    assert "prune=bimodal" in parse_spec("mcts:300,prune=bimodal").describe()
    for bad in ("mcts:200ms,prune=uniform", "mcts:300,soft=1", "mcts:300,prune=uniform,soft=2"):
        with pytest.raises(UserError):
            parse_spec(bad)
    with pytest.raises(UserError):
        agents.make("mcts:300,prune=/no/such/nets.npz", games.make("connect_four"))


@pytest.mark.parametrize("make_state", [connect_four_state, kittens_state])
def test_without_pruning_the_search_is_plain_uct(make_state, tmp_path):
    game, state = make_state()
    save(tmp_path / "never.npz", linear_nets(99.0))  # keep every action: the hook runs, prunes nothing
    plain = agents.make("mcts:300", game, seed=5).search(state, np.random.default_rng(1))
    none = agents.make("mcts:300,prune=none", game, seed=5).search(state, np.random.default_rng(1))
    idle = agents.make(f"mcts:300,prune={tmp_path / 'never.npz'}", game, seed=5).search(state, np.random.default_rng(1))
    assert plain.visits == none.visits == idle.visits and plain.values == idle.values
    assert plain.action == idle.action and idle.pruned == []


@pytest.mark.parametrize("make_state", [connect_four_state, kittens_state])
def test_pruning_never_removes_the_most_visited_action(make_state, tmp_path):
    game, state = make_state()
    save(tmp_path / "hard.npz", linear_nets(1.0))  # keep one action: the harshest pruning
    agent = agents.make(f"mcts:400,prune={tmp_path / 'hard.npz'},solve=0", game, seed=0)
    plain = agents.make("mcts:400,solve=0", game, seed=0)
    for seed in range(3):
        result = agent.search(state, np.random.default_rng(seed))
        assert result.pruned and result.action not in result.pruned
        assert result.visits[result.action] == max(result.visits.values())
        # after the prune at 100 simulations the kept action took every later simulation
        assert result.visits[result.action] >= 300
        reference = plain.search(state, np.random.default_rng(seed))
        assert reference.visits != result.visits


def test_shipped_networks_load_and_time_per_move_stays_close():
    for name in ("uniform", "bimodal"):
        nets = load(name)
        assert nets.keep([100, 300], 20).min() >= 1
    game, state = connect_four_state()
    plain = agents.make("mcts:300", game, seed=0)
    pruned = agents.make("mcts:300,prune=bimodal", game, seed=0)
    assert pruned.search(state, np.random.default_rng(0)).pruned  # it prunes here (and fills its tables)

    def median_time(agent):
        times = []
        for i in range(5):
            t0 = time.perf_counter()
            agent.search(state, np.random.default_rng(i))
            times.append(time.perf_counter() - t0)
        return float(np.median(times))

    assert median_time(pruned) < 2.0 * median_time(plain) + 0.01


def test_soft_pruning_lets_pruned_actions_back_into_the_search(tmp_path):
    game, state = connect_four_state()
    save(tmp_path / "hard.npz", linear_nets(1.0))
    hard = agents.make(f"mcts:400,prune={tmp_path / 'hard.npz'},solve=0", game, seed=0)
    soft = agents.make(f"mcts:400,prune={tmp_path / 'hard.npz'},soft=1,solve=0", game, seed=0)
    for seed in range(2):
        h = hard.search(state, np.random.default_rng(seed))
        s = soft.search(state, np.random.default_rng(seed))
        # the same first 100 simulations, then hard search spends every later one on one action
        assert max(h.visits.values()) >= 300 > max(s.visits.values())
        assert s.visits[s.action] == max(s.visits.values())
