"""`deckopt check` catches broken games: faults planted in copies of the example game (High Card,
examples/high_card), each caught by the check it breaks and passed by the others' fault-free parts.
The pristine game passes every check (tests/test_plugins.py)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from high_card import DECK_SIZE, HighCard, HighCardState, HighestCard
from high_card.space import HighCardSpace

from agents.base import RuleAgent
from agents.conformance import check_facts
from deckopt.cli import main
from evolution.config import load_config
from evolution.spaces.check import check_deck_space
from games.conformance import FAILED, PASSED, run_check, run_checks

GAMES = 30


class LostCardState(HighCardState):
    """A non-conserved card: the follower's card of a finished trick is never put with the shown cards."""

    def apply_action(self, action) -> None:
        trick = self._trick
        super().apply_action(action)
        if self._trick != trick:
            self._shown[1 - trick % 2].pop()


class LooseMaskState(HighCardState):
    """A mask that allows an illegal move: a 9 is always offered, held or not."""

    def legal_mask(self) -> np.ndarray:
        mask = super().legal_mask()
        if not self.is_terminal():
            mask[8] = True
        return mask


class SharedCloneState(HighCardState):
    """A clone that shares state: its hands are the original's lists."""

    def clone(self) -> HighCardState:
        new = super().clone()
        new._hands = self._hands
        return new


class PeekingState(HighCardState):
    """A hidden card in an observation: the follower sees the leader's face-down card."""

    def observation(self, player: int) -> np.ndarray:
        obs = super().observation(player)
        if self._down:
            obs[18 + self._down - 1] = 1.0
        return obs


class EarlyReturnsState(HighCardState):
    """Returns before the end: the trick score so far."""

    def returns(self) -> np.ndarray:
        a, b = self._tricks
        return np.array([np.sign(a - b), np.sign(b - a)], dtype=np.float64)


class UnseededState(HighCardState):
    """Chance not taken from the seed: player 0's deck is shuffled by a generator seeded from the clock."""

    def __init__(self, game, rng):
        super().__init__(game, rng)
        order = np.random.default_rng().permutation(game.decks[0]).tolist()
        size = game.config.hand_size
        self._hands[0], self._piles[0] = sorted(order[:size]), sorted(order[size:])


class UnpicklableState(HighCardState):
    """A state that cannot be pickled: it keeps a lambda."""

    def __init__(self, game, rng):
        super().__init__(game, rng)
        self._rule = lambda a, b: a > b


class OverBudgetDecks(HighCardSpace):
    """An operator returning an illegal deck: mutation returns eight 9s, over the budget."""

    def mutate(self, cards, rng) -> list[int]:
        return [9] * DECK_SIZE


def game_with(state_class) -> HighCard:
    game = HighCard()
    game.state_class = state_class
    return game


FAULTS = [  # (kind, the faulty state, the check that catches it, what its verdict says)
    ("a non-conserved card", LostCardState, "cards conserved", "cards not conserved: {(1, "),
    ("a mask that allows an illegal move", LooseMaskState, "invariants", "legal action 8 (card 9) raised ValueError"),
    ("a clone that shares state", SharedCloneState, "clone", "playing a clone changed its original"),
    ("a hidden card in an observation", PeekingState, "hidden information", "does the observation show a hidden"),
    ("returns before the end", EarlyReturnsState, "invariants", "before the end"),
    ("chance not from the seed", UnseededState, "same seed same game", ": the same "),
    ("a state that cannot be pickled", UnpicklableState, "pickle", "pickle"),
]


@pytest.mark.parametrize("state_class, check, needle", [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS])
def test_the_check_catches_a_planted_fault(state_class, check, needle):
    assert run_check(HighCard(), check, GAMES).status == PASSED  # the fault-free game passes it
    result = run_check(game_with(state_class), check, GAMES)
    assert result.status == FAILED and needle in result.detail, result


def test_the_check_catches_an_operator_returning_an_illegal_deck():
    config = load_config(game="high_card")
    assert check_deck_space(HighCardSpace(config), GAMES).status == PASSED
    result = check_deck_space(OverBudgetDecks(config), GAMES)
    assert result.status == FAILED and "a mutated deck is illegal" in result.detail, result


def test_a_fault_fails_its_check_only():
    results = {r.name: r.status for r in run_checks(game_with(PeekingState), GAMES)}
    assert results["hidden information"] == FAILED
    assert [name for name, status in results.items() if status == FAILED] == ["hidden information"]


class PeekingGame(HighCard):
    """The peeking fault as a game class, for the command line's package.module:Class form."""

    state_class = PeekingState


def test_deckopt_check_exits_1_on_a_fault_and_names_it(capsys):
    code = main(["check", f"{__name__}:PeekingGame", "--games", str(GAMES)])
    out, err = capsys.readouterr()
    assert code == 1 and not err
    failed = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith("FAIL  hidden information: player ")
    assert out.splitlines()[-1] == "1 of 12 checks failed: hidden information"


class Cheat(RuleAgent):
    """A rule agent that plays a card it does not hold."""

    def choose(self, state) -> int:
        return next(a for a in range(9) if not state.legal_mask()[a])


class CheatingGame(HighCard):
    """High Card naming a rule agent that breaks the rules."""

    facts = dataclasses.replace(HighCard.facts, bots={"heuristic": HighestCard, "cheat": Cheat})


class UnknownDefaultGame(HighCard):
    """High Card naming a default agent that does not exist."""

    facts = dataclasses.replace(HighCard.facts, bots={"heuristic": HighestCard}, default_agent="no_such_agent")


def test_a_rule_agent_that_breaks_the_rules_fails_the_facts_check(capsys):
    code = main(["check", f"{__name__}:CheatingGame", "--games", str(GAMES)])
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert code == 1 and len(failed) == 1, out
    assert failed[0].startswith("FAIL  facts and rule agents: rule agent 'cheat': IllegalActionError")
    result = check_facts(UnknownDefaultGame(), 4)
    assert result.status == FAILED and result.detail.startswith("default_agent: unknown agent spec 'no_such_agent'")


class ExitingState(HighCardState):
    """A state that ends the process: playing a card calls sys.exit()."""

    def apply_action(self, action) -> None:
        sys.exit()


class ExitingGame(HighCard):
    state_class = ExitingState


def test_a_game_that_exits_fails_its_checks_and_check_still_gives_its_verdict(capsys):
    code = main(["check", f"{__name__}:ExitingGame", "--games", "5"])
    out, err = capsys.readouterr()
    assert code == 1 and not err
    assert "FAIL  invariants: " in out and "raised SystemExit" in out and "checks failed: " in out.splitlines()[-1]


class CrashingState(HighCardState):
    """A state whose engine crashes when a card is played."""

    def apply_action(self, action) -> None:
        raise RuntimeError("the engine broke")


class CrashingGame(HighCard):
    state_class = CrashingState


def test_a_crash_names_its_file_and_line_and_debug_shows_its_traceback(capsys):
    here = f"{Path(__file__)}:{CrashingState.apply_action.__code__.co_firstlineno + 1}"
    assert main(["check", f"{__name__}:CrashingGame", "--games", "5"]) == 1
    out = capsys.readouterr().out
    assert f"raised RuntimeError: the engine broke at {here}" in out and "Traceback" not in out
    assert main(["--debug", "check", f"{__name__}:CrashingGame", "--games", "5"]) == 1
    out = capsys.readouterr().out
    assert "Traceback (most recent call last):" in out and f"line {here.rsplit(':', 1)[1]}, in apply_action" in out


PLUGIN_HEAD = "from high_card import HighCard\n\n"
INIT_RAISES = "class G(HighCard):\n    def __init__(self, config=None):\n        raise RuntimeError('no\\nway')\n"
ABSTRACT = "import abc\n\nclass G(HighCard, abc.ABC):\n    @abc.abstractmethod\n    def rules(self): ...\n"
BROKEN_PLUGINS = [  # (module file's text, what the one line says)
    (PLUGIN_HEAD + INIT_RAISES, "cannot be made: RuntimeError: no way"),
    (PLUGIN_HEAD + ABSTRACT, "cannot be made: TypeError: Can't instantiate"),
    ("raise RuntimeError('not on import')\n", "cannot load"),
    ("def broken(:\n", "SyntaxError"),
    (PLUGIN_HEAD + "class G(HighCard):\n    config_class = dict\n", "config_class is not a dataclass"),
]


@pytest.mark.parametrize("text, needle", BROKEN_PLUGINS, ids=["init", "abstract", "import", "syntax", "config"])
def test_a_broken_plugin_is_one_line(text, needle, tmp_path, monkeypatch, capsys):
    module = f"broken_plugin_{abs(hash(text))}"
    (tmp_path / f"{module}.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["check", f"{module}:G", "--games", "5"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and needle in err and "Traceback" not in err, err


def test_check_finds_a_game_module_in_the_current_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "game_right_here.py").write_text(PLUGIN_HEAD + "class Here(HighCard):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "game_right_here:Here", "--games", "5"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "11 checks passed, 1 skipped: vectorised engine"


class Box:
    """Another engine's state object: no __eq__, so compared by identity."""


class BoxedState(HighCardState):
    """A wrapper that keeps an engine object in one field."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._box = Box()

    def clone(self) -> HighCardState:
        copy = super().clone()
        copy._box = Box()
        return copy


class BoxedGame(HighCard):
    state_class = BoxedState


def test_a_field_without_equality_is_named_as_the_cause(capsys):
    assert main(["check", f"{__name__}:BoxedGame", "--games", "5"]) == 1
    out = capsys.readouterr().out
    hint = "Box has no __eq__, so two copies never compare equal"
    assert f"FAIL  clone: fields differ: ['_box'] ({hint}" in out
    assert "FAIL  same seed same game: seed 0: the same seed and actions ended in other fields: ['_box']" in out
