"""The Gwent Abilities deck space (evolution/spaces/gwent_abilities.py): operators that always return
legal decks, a tiny run through the command line (same seed, same run; resumed, the same run), the
decks command and the conformance check."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from deckopt.cli import main
from evolution.config import EvolveConfig, config_from_settings, load_config
from evolution.loop import evolve, prepare_run
from evolution.scoring.fitness import AgentPanel
from evolution.spaces.check import check_deck_space
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace, names
from evolution.spaces.registry import SPACES
from games.errors import UserError
from games.gwent_abilities_cards import CARD_INDEX, CARDS, AbilityDeckRules, load_ability_deck

TINY = dict(game="gwent_abilities", generations=2, pool=6, games_per_pair=2, jobs=1, validation_games=2)
TINY |= dict(hof_size=2, hof_opponents=2, plot_every=1, yardstick_games=2, playoff_games_per_pair=2)
FLAGS = ["--game", "gwent_abilities", "--generations", "2", "--pool", "6", "--games-per-pair", "2"]
FLAGS += ["--jobs", "1", "--validation-games", "2", "--hof-size", "2", "--hof-opponents", "2"]
FLAGS += ["--yardstick-games", "2", "--playoff-games-per-pair", "2"]


def make_space(rules: AbilityDeckRules | None = None, descriptors: str | None = None) -> GwentAbilitiesSpace:
    """The space of a run under `rules` (default the game's) with the archive's `descriptors` pair."""
    settings = {"rules": rules} if rules is not None else {}
    if descriptors is not None:
        settings |= {"archive": True, "archive_descriptors": descriptors}
    return GwentAbilitiesSpace(load_config(game="gwent_abilities", **settings))


@pytest.fixture(scope="module")
def space() -> GwentAbilitiesSpace:
    return make_space()


def test_the_space_is_registered_and_its_settings_default_to_the_games_own():
    assert SPACES["gwent_abilities"] is GwentAbilitiesSpace
    config = load_config(game="gwent_abilities")
    assert config.agent == "gwent_abilities_evaluator" and config.settings.yardstick == [
        "decks/gwent_abilities/yardstick"
    ]
    assert config.settings.validation_panel == ["decks/gwent_abilities"]


def test_every_operator_returns_a_legal_deck(space):
    rng = np.random.default_rng(5)
    decks = [space.random_deck(rng) for _ in range(150)]
    assert len({tuple(d) for d in decks}) > 140  # random decks differ
    for i, deck in enumerate(decks):
        assert space.problems(deck) == [] and deck == sorted(deck)
        child = space.mutate(deck, rng)
        assert space.problems(child) == [] and child != deck
        for x in space.crossover(deck, decks[i - 1], rng):
            assert space.problems(x) == []


def test_repair_makes_any_list_of_cards_legal_and_keeps_a_legal_deck(space):
    rng = np.random.default_rng(6)
    heroes = [k for k, c in enumerate(CARDS) if c.hero]
    dear = max(range(len(CARDS)), key=lambda k: CARDS[k].provision)
    junk = [[], [dear] * 60, heroes * 3, list(range(len(CARDS))) * 3]
    junk += [sorted(rng.integers(0, len(CARDS), size=int(rng.integers(0, 90))).tolist()) for _ in range(200)]
    for cards in junk:
        assert space.problems(space.repair(cards, rng)) == [], cards
    deck = space.random_deck(rng)
    assert space.repair(deck, rng) == deck


def test_a_tight_budget_still_gives_legal_decks():
    space = make_space(AbilityDeckRules(min_cards=30, max_cards=31, provision_budget=97))
    rng = np.random.default_rng(7)
    for _ in range(100):
        deck = space.random_deck(rng)
        assert space.problems(space.mutate(deck, rng)) == []
        assert space.problems(space.repair([CARD_INDEX["geralt"]] * 40, rng)) == []


def test_the_reference_and_yardstick_decks_are_legal_distinct_and_inside_the_archive(space):
    refs = space.references(["decks/gwent_abilities"])
    yardstick = space.references(["decks/gwent_abilities/yardstick"])
    assert len(refs) == 5 and len(yardstick) == 10
    assert not {r.cards for r in refs} & {r.cards for r in yardstick}
    _, ranges = space.descriptor_space()
    for ref in refs + yardstick:
        assert space.problems(ref.cards) == [], ref.name
        for value, (lo, hi) in zip(space.descriptors(ref.cards), ranges):
            assert lo <= value <= hi, (ref.name, value)
    cards = {r.name: r.cards for r in refs}
    assert space.descriptors(cards["plain"]) == (0.0, 0.0) and space.descriptors(cards["bond"])[1] > 0.4
    assert space.descriptors(cards["spy_medic"])[0] > 0.4


def test_the_conformance_check_covers_the_operators(capsys):
    result = check_deck_space(make_space(), 30)
    assert result.status == "passed"
    assert main(["check", "gwent_abilities", "--games", "5"]) == 0
    assert "ok    deck space operators" in capsys.readouterr().out


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("ga") / "run"
    assert main(["evolve", *FLAGS, "--out", str(run)]) == 0
    return run


def test_a_tiny_run_through_the_command_line(cli_run, space):
    for name in ("config.json", "generations/gen_0001.json", "champion.toml", "validation.json", "report.html"):
        assert (cli_run / name).is_file(), name
    decks = json.loads((cli_run / "generations/gen_0001.json").read_text())["decks"]
    assert len(decks) == 6 and all(space.problems(d["cards"]) == [] for d in decks)
    assert all(sum(d["deck"].values()) == len(d["cards"]) for d in decks)
    champion = json.loads((cli_run / "champion.json").read_text())
    deck = load_ability_deck(cli_run / "champion.toml")
    assert Counter(deck.cards) == Counter(names(champion["cards"]))
    validation = json.loads((cli_run / "validation.json").read_text())
    assert [r["name"] for r in validation["references"]] == ["bond", "horn", "morale_swarm", "plain", "spy_medic"]
    assert validation["games"] == 10


def test_the_yardstick_measures_every_generation_and_chooses_the_champion(cli_run):
    for gen in range(2):
        decks = json.loads((cli_run / f"generations/gen_{gen:04d}.json").read_text())["decks"]
        measured = [d["yardstick"] for d in decks if d.get("yardstick")]
        assert len(measured) == 3 and all(y["games"] == 10 * 2 for y in measured)  # 3 best x 10 decks x 2 games
    champion = json.loads((cli_run / "champion.json").read_text())
    assert champion["how"].startswith("best against the yardstick (10 decks)")
    assert champion["cards"] == champion["yardstick"][0]["cards"]


def test_a_baseline_plays_the_same_deals(cli_run, capsys):
    """The champion against itself as the baseline: on the same deals the paired difference is 0."""
    assert main(["decks", str(cli_run), "--validate", "--games", "4", "--baseline", str(cli_run), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["validation"]
    assert report["baseline"]["overall"]["delta"] == 0.0 and report["baseline"]["overall"]["delta_ci95"] == [0, 0]
    assert report["baseline"]["overall"]["score"] == report["overall"]["score"]


def test_the_same_seed_gives_the_same_run(cli_run, tmp_path):
    again = tmp_path / "again"
    assert main(["evolve", *FLAGS, "--out", str(again)]) == 0
    for name in ("generations/gen_0000.json", "generations/gen_0001.json"):
        a, b = (json.loads((r / name).read_text()) for r in (cli_run, again))
        a.pop("seconds"), b.pop("seconds")
        assert a == b
    assert (again / "champion.json").read_text() == (cli_run / "champion.json").read_text()


def test_a_resumed_run_ends_where_the_uninterrupted_one_does(cli_run, tmp_path):
    run = tmp_path / "resumed"
    evolve(load_config(**{**TINY, "generations": 1}), run, finish=False)
    evolve(None, run, resume=True, overrides={"generations": 2})
    a, b = (json.loads((r / "generations/gen_0001.json").read_text()) for r in (cli_run, run))
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_the_decks_command_names_the_cards(cli_run, capsys):
    assert main(["decks", str(cli_run)]) == 0
    out = capsys.readouterr().out
    assert "(gwent_abilities, objective win)" in out and "x " in out
    assert main(["decks", str(cli_run), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    best = report["generations"][-1]["best"]
    assert set(best["deck"]) <= set(CARD_INDEX) and sum(best["deck"].values()) == len(best["cards"])


def test_gwent_lite_settings_are_refused_in_one_line(tmp_path):
    with pytest.raises(UserError, match="panel decks do not apply to gwent_abilities"):
        load_config(game="gwent_abilities", opponents=["panel"], panel=["decks/gwent_abilities"])
    settings = tmp_path / "settings.toml"
    settings.write_text('game = "gwent_abilities"\n[gwent.rules]\nmin_cards = 10\n')
    with pytest.raises(UserError, match=r"\[gwent\] rules is not a setting of gwent_abilities"):
        load_config(settings)
    with pytest.raises(UserError, match="constraints: not a setting of a run of gwent_abilities"):
        load_config(game="gwent_abilities", constraints={"forbidden": [3]})


# --- the archive's descriptor pairs ([archive] descriptors, --archive-descriptors NAME) -------------
def deck_of(*counts: tuple[int, str]) -> list[int]:
    return sorted(CARD_INDEX[name] for n, name in counts for _ in range(n))


def test_the_rows_descriptors_are_the_shares_of_the_units_on_the_melee_and_ranged_rows():
    rows = make_space(descriptors="rows")
    assert rows.descriptor_space() == (("melee_share", "ranged_share"), [(0.0, 1.0), (0.0, 1.0)])
    # 6 melee units (a hero among them), 3 ranged, 3 siege; the specials (frost's row is melee) count for none
    deck = deck_of((3, "militia"), (2, "blue_stripes"), (1, "geralt"), (3, "archer"), (3, "catapult"))
    deck += deck_of((3, "frost"), (2, "scorch"), (2, "decoy"))
    assert rows.descriptors(deck) == (0.5, 0.25)
    assert rows.descriptors(deck_of((3, "trebuchet"), (1, "eredin"), (1, "rain"))) == (0.0, 0.0)
    assert rows.descriptors(deck_of((3, "frost"), (1, "scorch"))) == (1 / 3, 1 / 3)  # no units: no row
    style = make_space()
    assert style.Settings.descriptor_sets == ("style", "rows") and style.descriptor_set == "style"
    assert style.descriptor_space()[0] == ("advantage_share", "synergy_share")
    assert style.descriptors(deck) == (2 / 19, 2 / 19)  # decoy; blue_stripes


@pytest.fixture(scope="module")
def rows_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("rows") / "run"
    flags = ["--archive", "--archive-descriptors", "rows", "--no-validate", "--quiet"]
    assert main(["evolve", *FLAGS, *flags, "--out", str(run)]) == 0
    return run


def test_an_archive_run_over_the_rows_keeps_its_descriptors(rows_run, capsys):
    config = json.loads((rows_run / "config.json").read_text())
    assert config["archive"]["descriptors"] == "rows"
    data = json.loads((rows_run / "archive.json").read_text())
    assert data["descriptors"] == ["melee_share", "ranged_share"] and data["entries"]
    rows = make_space(descriptors="rows")
    for e in data["entries"]:
        assert (e["melee_share"], e["ranged_share"]) == pytest.approx(rows.descriptors(e["cards"]))
    capsys.readouterr()
    assert main(["decks", str(rows_run), "--archive"]) == 0
    assert "elites over melee_share x ranged_share" in capsys.readouterr().out
    assert main(["decks", str(rows_run), "--archetypes", "2", "--games", "2", "--screen-games", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["descriptors"] == ["melee_share", "ranged_share"]
    assert main(["evolve", "--resume", str(rows_run), "--archive-descriptors", "style"]) == 2
    assert "cannot change archive_descriptors when resuming" in capsys.readouterr().err


def test_an_unknown_descriptor_pair_is_one_line(tmp_path, capsys):
    run = tmp_path / "r"
    assert main(["evolve", *FLAGS, "--archive", "--archive-descriptors", "power", "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert "archive_descriptors 'power' is not available for gwent_abilities; choose style, rows" in err
    assert err.count("\n") == 1 and not run.exists()
    assert main(["evolve", "--archive", "--archive-descriptors", "rows", "--out", str(run)]) == 2
    assert "archive_descriptors 'rows' is not available for gwent_lite; choose power" in capsys.readouterr().err


def test_the_descriptor_pair_comes_from_the_settings_file_too(tmp_path):
    path = tmp_path / "qd.toml"
    path.write_text('game = "gwent_abilities"\n[archive]\nenabled = true\ndescriptors = "rows"\n')
    assert load_config(path).archive_descriptors == "rows"
    assert load_config(game="gwent_abilities").archive_descriptors == "style"
    assert load_config().archive_descriptors == "power"


# --- a run's own deck rules ([gwent_abilities.rules], --set rules.NAME=VALUE) ------------------------
#: 20-card decks of single copies: illegal under the default rules (25 cards at least), so a game
#: made without the run's rules would refuse them
RULES = ["--set", "rules.copy_limit=1", "--set", "rules.min_cards=20", "--set", "rules.max_cards=20"]
SMALL = AbilityDeckRules(min_cards=20, max_cards=20, copy_limit=1)


def _all_decks(run: Path) -> list[list[int]]:
    files = sorted((run / "generations").glob("gen_*.json"))
    decks = [d["cards"] for f in files for d in json.loads(f.read_text())["decks"]]
    hof = json.loads((run / "hall_of_fame.json").read_text())
    entries = hof if isinstance(hof, list) else hof.get("decks", [])
    return decks + [e["cards"] for e in entries if isinstance(e, dict) and "cards" in e]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("ga_small") / "small"
    assert main(["evolve", *FLAGS, *RULES, "--no-validate", "--quiet", "--out", str(run)]) == 0
    return run


def test_a_run_under_its_own_rules_holds_only_decks_legal_under_them(small_run, capsys):
    run = small_run
    space = make_space(SMALL)
    decks = _all_decks(run)
    assert len(decks) >= 12 and all(space.problems(d) == [] for d in decks)
    assert all(len(d) == 20 and len(set(d)) == 20 for d in decks)
    assert json.loads((run / "config.json").read_text())["gwent_abilities"]["rules"] == {
        "min_cards": 20, "max_cards": 20, "copy_limit": 1, "gold_copy_limit": 1, "provision_budget": 150,
    }  # fmt: skip
    assert load_ability_deck(run / "champion.toml").rules == SMALL
    capsys.readouterr()
    assert main(["decks", str(run)]) == 0
    assert "(gwent_abilities, objective win)" in capsys.readouterr().out


def test_matchups_and_advise_read_a_run_under_its_own_rules(small_run, capsys):
    # the run's 20-card decks are illegal under the default rules: read under them, they are refused
    capsys.readouterr()
    game = ["--game", "gwent_abilities", "--agent", "heuristic", "--games", "2", "--json"]
    assert main(["matchups", str(small_run), *game]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["decks"]) >= 2 and all(make_space(SMALL).problems(d["cards"]) == [] for d in data["decks"])
    sizes = ["--rounds", "1", "--top", "3", "--contribution-games", "2"]
    assert main(["advise", str(small_run / "champion.toml"), "--vs", str(small_run), *game, *sizes]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["candidates"] and all(make_space(SMALL).problems(c["cards"]) == [] for c in data["candidates"])
    # a deck file alone is read under the default rules
    assert main(["advise", str(small_run / "champion.toml"), *game, *sizes]) == 2
    assert "illegal" in capsys.readouterr().err


def test_the_rules_come_from_the_settings_file_too(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text('game = "gwent_abilities"\n[gwent_abilities.rules]\ncopy_limit = 2\n')
    from_file = load_config(settings)
    assert from_file.settings.rules == AbilityDeckRules(copy_limit=2)
    assert load_config(settings, deck_rules={"max_cards": 30}).settings.rules == AbilityDeckRules(
        copy_limit=2, max_cards=30
    )
    assert GwentAbilitiesSpace(from_file).rules == AbilityDeckRules(copy_limit=2)


@pytest.mark.parametrize(
    "flag, message",
    [
        ("rules.copy_limit=0", "[gwent_abilities.rules]: deck rules: copy_limit must be a whole number >= 1, got 0"),
        ("rules.copies=2", "[gwent_abilities.rules]: unknown setting(s) copies"),
        ("rules.min_cards=41", "min_cards (41) exceeds max_cards (40)"),
    ],
)
def test_a_bad_rule_is_one_line(tmp_path, capsys, flag, message):
    assert main(["evolve", "--game", "gwent_abilities", "--set", flag, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_reference_decks_illegal_under_the_runs_rules_are_one_line(tmp_path, capsys):
    assert main(["evolve", *FLAGS, *RULES, "--quiet", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "is illegal under the run's rules" in err and "--no-validate" in err and err.count("\n") == 1


def test_a_resumed_run_keeps_its_rules(tmp_path, capsys):
    run = tmp_path / "resumed"
    one = [a if a != "2" or i != 3 else "1" for i, a in enumerate(FLAGS)]  # --generations 1
    assert one[2:4] == ["--generations", "1"]
    assert main(["evolve", *one, *RULES, "--no-validate", "--quiet", "--out", str(run)]) == 0
    assert main(["evolve", "--resume", str(run), "--generations", "2", "--quiet"]) == 0
    assert (run / "generations/gen_0001.json").is_file()
    space = make_space(SMALL)
    assert all(space.problems(d) == [] for d in _all_decks(run))
    capsys.readouterr()
    assert main(["evolve", "--resume", str(run), "--set", "rules.copy_limit=2"]) == 2
    assert "keeps the run's deck rules" in capsys.readouterr().err


def test_an_old_run_folder_without_the_rules_or_descriptors_resumes_with_the_defaults(tmp_path):
    run = tmp_path / "old"
    evolve(load_config(**{**TINY, "generations": 1, "validate": False}), run, finish=False)
    config = json.loads((run / "config.json").read_text())
    del config["gwent_abilities"]["rules"], config["archive"]["descriptors"]
    (run / "config.json").write_text(json.dumps(config))
    evolve(None, run, resume=True, overrides={"generations": 2}, finish=False)
    config = json.loads((run / "config.json").read_text())
    assert config["gwent_abilities"]["rules"] == asdict(AbilityDeckRules())
    assert config["archive"]["descriptors"] == "style"


def test_a_config_json_with_a_table_for_each_of_our_games_reads_as_it_was_written():
    """The format before a run config held its game's settings: the head-to-head settings in [gwent],
    the deck rules in [gwent_abilities], every other game's table at its defaults."""
    config = load_config(**TINY, opponents=["population"], rules=AbilityDeckRules(copy_limit=1), validate=False)
    data = config.to_dict()
    own = data.pop("gwent_abilities")
    gwent = {name: value for name, value in own.items() if name != "rules"}
    gwent |= {"rules": {"min_cards": 25, "max_total": 100, "min_power": 1}, "mut_card_rate": data.pop("mut_card_rate")}
    kittens = {"game_config": {}, "games_per_deck": 400, "playoff_games_per_deck": 4000}
    old = data | {"gwent": gwent, "kittens": kittens, "gwent_abilities": {"rules": own["rules"]}, "plugin_rules": {}}
    assert config_from_settings(json.loads(json.dumps(old)), saved=True) == config
    with pytest.raises(UserError, match=r"\[gwent\] rules is not a setting of gwent_abilities"):
        config_from_settings(old | {"gwent": gwent | {"rules": {"min_cards": 10}}})  # a settings file: refused


def test_a_resume_may_change_the_games_execution_settings_only(tmp_path):
    run = tmp_path / "run"
    evolve(load_config(**{**TINY, "generations": 1, "validate": False}), run, finish=False, log=None)
    config, _ = prepare_run(None, run, resume=True, overrides={"validation_games": 4, "generations": 2})
    assert (config.settings.validation_games, config.generations) == (4, 2)
    with pytest.raises(UserError, match="cannot change games_per_pair when resuming"):
        prepare_run(None, run, resume=True, overrides={"games_per_pair": 4})


def test_gwent_abilities_rules_are_refused_in_a_gwent_lite_run(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text("[gwent_abilities.rules]\ncopy_limit = 1\n")
    with pytest.raises(UserError, match=r"\[gwent_abilities\] rules is not a setting of gwent_lite"):
        load_config(settings)


def test_a_comma_list_of_agents_is_a_panel_and_a_bad_one_is_one_line(space):
    panel = space.build_agent("heuristic,random", seed=0)
    assert isinstance(panel, AgentPanel) and panel.specs == ("heuristic", "random")
    with pytest.raises(UserError, match="agent 'nonsense'"):
        space.build_agent("heuristic,nonsense", seed=0)


def test_match_plays_gwent_abilities_deck_files(capsys):
    bond, evolved = "decks/gwent_abilities/bond.toml", "decks/gwent_abilities/yardstick/evolved_01.toml"
    assert main(["match", "gwent_abilities", "heuristic", "heuristic", "--games", "20", "--deck", bond]) == 0
    args = ["match", "gwent_abilities", "heuristic", "heuristic", "--games", "40", "--seed", "3", "--json"]
    assert main([*args, "--deck", bond, "--deck", evolved]) == 0
    one = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert main([*args, "--deck", evolved, "--deck", bond]) == 0
    other = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert one != other  # the decks reached the seats
    assert main(["match", "gwent_abilities", "heuristic", "random", "--games", "2", "--deck", "decks/flat.toml"]) == 2
    assert "cards must be text" in capsys.readouterr().err


def test_deck_folders_given_explicitly_are_kept_even_when_they_are_gwent_lite_s_defaults():
    config = load_config(game="gwent_abilities", yardstick=["decks/yardstick"], validation_panel=["decks"])
    assert config.settings.yardstick == ["decks/yardstick"] and config.settings.validation_panel == ["decks"]
    assert load_config(game="gwent_abilities").settings.yardstick == ["decks/gwent_abilities/yardstick"]


def test_archive_descriptors_without_the_archive_is_refused():
    with pytest.raises(UserError, match="archive_descriptors 'rows' applies to the MAP-Elites archive, which is off"):
        EvolveConfig(game="gwent_abilities", archive_descriptors="rows")
    assert load_config(game="gwent_abilities", archive=True, archive_descriptors="rows").archive_descriptors == "rows"


def test_archive_descriptors_given_on_the_command_line_without_the_archive_is_refused_even_the_default(capsys):
    """The game's own pair too: a flag that would do nothing is refused, not ignored."""
    for descriptors in ("style", "rows"):
        assert main(["evolve", *FLAGS, "--archive-descriptors", descriptors, "--out", "never-written"]) == 2
        assert f"archive_descriptors {descriptors!r} applies to the MAP-Elites archive: add --archive" in (
            capsys.readouterr().err
        )
    assert not Path("never-written").exists()
