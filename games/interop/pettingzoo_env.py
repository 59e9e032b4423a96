"""Every registered game as a PettingZoo AEC environment.

    from games.interop.pettingzoo_env import env
    e = env("incan_gold", render_mode="ansi", num_players=4)   # settings: the game's config fields
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are "player_0".."player_{n-1}" (seat order). An observation is a dict: "observation", the game's
float32 vector from that agent's view (what it may know only), and "action_mask", int8 over the
Discrete action space, all zeros unless it is that agent's move. Rewards are zero until the end, then
the game's `returns()`; every agent terminates together and nothing is ever truncated.

Chance is resolved inside the game: a state draws its shuffles from the Generator it was made with.
`reset(seed=s)` seeds that Generator, so a seed replays the same games; `reset()` without a seed goes
on with the current stream (seed 0 if none was ever given: every game comes from an explicit seed).
Incan Gold's simultaneous choices are sequential turns here as in the engine: a player's observation
never shows the choices already made in the same step.

`render()` (render_mode "ansi") returns the game's own text: the position as the agent to move sees it
(what `deckopt play` shows that seat), and the whole position once the game is over.
"""

from __future__ import annotations

import numpy as np

import games
from games.interop import missing_extra

try:
    import pettingzoo as _pettingzoo
    from gymnasium import spaces
except ImportError as exc:
    raise missing_extra("games.interop.pettingzoo_env", exc) from None
AECEnv = _pettingzoo.AECEnv


def agent_name(player: int) -> str:
    return f"player_{player}"


class DeckoptAECEnv(AECEnv):
    """A registered game (`games.make(game_name, **settings)`) as an AEC environment."""

    metadata = {"render_modes": ["ansi"], "name": "deckopt", "is_parallelizable": False}

    def __init__(self, game_name: str, render_mode: str | None = None, **settings):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise games.UserError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game = games.make(game_name, **settings)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"deckopt_{game_name}"}
        n, size, actions = self.game.num_players, self.game.observation_size, self.game.num_actions
        self.possible_agents = [agent_name(p) for p in range(n)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        low, high = self.game.observation_range  # every feature's bounds, as the game declares them
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, shape=(size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._rng = np.random.default_rng(0)
        self.state = None

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state(np.random.default_rng(int(self._rng.integers(2**63))))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = agent_name(self.state.current_player)

    def observe(self, agent: str) -> dict:
        player = self._seat[agent]
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if not self.state.is_terminal() and player == self.state.current_player:
            mask[self.state.legal_mask()] = 1
        return {"observation": self.state.observation(player), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        if self.state.is_terminal():
            returns = self.state.returns()
            self.rewards = {a: float(returns[self._seat[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = agent_name(self.state.current_player)
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.state.is_terminal():
            return str(self.state)
        return self.state.view(self.state.current_player)

    def close(self) -> None:
        pass


def env(game_name: str, render_mode: str | None = None, **settings) -> DeckoptAECEnv:
    """The AEC environment of the registered game `game_name` with the given config settings."""
    return DeckoptAECEnv(game_name, render_mode=render_mode, **settings)
