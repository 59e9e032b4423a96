"""How far a verdict can be trusted: the Gwent Lite evaluator panel is the default agent of deck
evolution, each named panel carries its trust figures (agents/pretrained/panels.toml) as its results
page measured them, and a validation gives the champion's score under each copy of the panel, on the
deals that copy played, with a plain "holds under every copy" and the panel's trust figures, in the
terminal, in `deckopt decks --validate` and in report.html."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.panel import NAMED_PANELS, AgentPanel, member_of_deal, trust_figures
from agents.parallel import Mapper
from deckopt.cli import main
from evolution.config import load_config
from evolution.designer.html import render_blocks
from evolution.designer.html_report import write_report
from evolution.designer.tables import trust_lines, validation_table
from evolution.designer.verdicts import verdict_blocks
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from evolution.scoring import fitness as fit
from evolution.scoring import validation
from evolution.spaces.gwent import GwentDeal, build_agent
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from evolution.spaces.registry import space_for
from games.errors import UserError
from tests.test_evolution_runfolder import tiny

ROOT = Path(__file__).resolve().parent.parent


def cli(*args) -> int:
    return main([str(a) for a in args])


def test_each_game_defaults_to_its_evaluator_and_the_help_says_so(capsys):
    assert load_config().agent == "evaluator"
    assert load_config(game="gwent_abilities").agent == "gwent_abilities_evaluator"
    assert load_config(game="exploding_kittens").agent == "pretrained"  # its composition-trained agent
    assert load_config(agent="heuristic").agent == "heuristic"
    with pytest.raises(SystemExit):
        cli("evolve", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "default: the game's own, the default agent its facts declare" in text  # Gwent Lite's: evaluator
    run_rule = (ROOT / "Makefile").read_text().split("\nrun:")[1].split("\n\n")[0]
    assert "deckopt evolve" in run_rule and "--agent" not in run_rule  # make run uses the default
    # another deck game plays with its own default agent, and is told in one line that Gwent Lite's panel is not one
    assert load_config(game="high_card").agent == "heuristic"
    config = load_config(game="high_card", agent="evaluator")
    with pytest.raises(UserError, match="'evaluator' is the gwent_lite evaluator panel, not an agent for high_card"):
        space_for(config).scorer(config)


@pytest.mark.parametrize("name", sorted(n for n, p in NAMED_PANELS.items() if "exploitability" in p))
def test_every_named_panel_carries_the_trust_figures_its_results_page_measured(name):
    panel = NAMED_PANELS[name]
    assert agents.PANELS[name] == tuple(panel["members"]) and len(panel["members"]) >= 2
    assert all((ROOT / m).is_file() for m in panel["members"])
    page = (ROOT / panel["results"]).read_text(encoding="utf-8")
    flat = " ".join(page.replace("`", " ").replace("**", "").split())  # commands wrap across lines in prose
    e, a = panel["exploitability"], panel["agreement"]
    assert e["ci95"][0] <= e["score"] <= e["ci95"][1]
    assert f"{e['score']:.3f} [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}]" in flat
    assert a["spearman"][0] <= a["spearman"][1] <= a["spearman_ceiling"][1]
    assert f"{a['worst_difference']:.3f}" in page and a["worst_deck"] in page
    assert f"{a['spearman'][0]:.3f}-{a['spearman'][1]:.3f}" in page
    for command in e["commands"] + a["commands"]:
        assert command in flat, f"{name}: {command!r} is not on {panel['results']}"
    assert name in command or any(m in command for m in panel["members"])
    # found by name and by its members as a comma list; none for another agent
    assert trust_figures(name)["exploitability"]["score"] == e["score"]
    assert trust_figures(",".join(panel["members"]), panel["members"])["panel"] == name
    assert trust_figures("heuristic") is None and trust_figures("a,b", ("a", "b")) is None


def test_a_verdict_holds_only_if_it_holds_under_every_copy():
    panel = AgentPanel((None, None), ("copy_a", "copy_b"))
    deals = 40
    # deck A wins every deal copy_a plays and loses every deal copy_b plays, against both references
    results = []
    for i in range(2):
        who = np.array([member_of_deal(d, i, 2) for d in range(deals)])
        results.append(np.where(who[:, None] == 0, 1, -1).repeat(2, axis=1).astype(np.int8))
    v = validation.panel_verdict(panel, "copy_a,copy_b", results)
    a, b = v["members"]
    assert (a["spec"], a["score"], a["games"], a["lower_above_0.5"]) == ("copy_a", 1.0, 80, True)
    assert (b["spec"], b["score"], b["games"], b["lower_above_0.5"]) == ("copy_b", 0.0, 80, False)
    assert v["holds_under_every_member"] is False and v["trust"] is None
    lines = "\n".join(trust_lines({**v, "agent": "copy_a,copy_b"}))
    assert "holds under every copy (interval above 0.5): no" in lines
    assert "no exploitability or agreement figures recorded" in lines
    results = [np.ones((deals, 2), dtype=np.int8)] * 2
    assert validation.panel_verdict(panel, "copy_a,copy_b", results)["holds_under_every_member"] is True
    assert "members" not in validation.panel_verdict(object(), "heuristic", results)  # one agent: no copies


def test_each_copys_score_is_its_own_play_on_the_deals_it_played():
    """The split by copy matches what each copy does when it plays alone: a network is greedy, so its
    games on the deals the panel gave it are the games it plays on those deals by itself."""
    config = load_config()
    rules = config.settings.rules
    refs = space_for(config).references(["decks/flat.toml", "decks/random_1.toml", "decks/high_variance.toml"])
    cards = refs[1].cards
    specs = ["agents/pretrained/gwent_lite_evaluator_0.npz", "agents/pretrained/gwent_lite_evaluator_1.npz"]
    with Mapper(1) as pmap:
        report = validation.validate(
            cards, refs, build_agent(",".join(specs), rules), GwentDeal(rules), pmap, 30, 5, agent_spec=",".join(specs)
        )
        for k, spec in enumerate(specs):
            agent = build_agent(spec, rules)
            alone = validation._against_references(cards, refs, agent, GwentDeal(rules), pmap, 30, 5, 200, None)
            mine = fit.Score()
            for i, outcomes in enumerate(alone):
                mine.add(outcomes[[member_of_deal(d, i, 2) == k for d in range(len(outcomes))]])
            assert report["members"][k] == {"spec": spec, **mine.as_dict(), "lower_above_0.5": mine.ci95[0] > 0.5}
    assert sum(m["games"] for m in report["members"]) == report["games"]
    assert report["trust"] is None  # two of the evaluator's three copies are not a named panel


@pytest.fixture(scope="module")
def evaluator_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("trust") / "run"
    evolve(tiny(agent="evaluator", validate=True, validation_panel=["decks/flat.toml"], validation_games=12), folder)
    return folder


def test_the_report_and_the_terminal_show_the_copies_and_the_trust_figures(evaluator_run):
    folder = RunFolder(evaluator_run)
    report = json.loads(folder.validation.read_text())
    assert [m["spec"] for m in report["members"]] == list(agents.PANELS["evaluator"])
    assert report["trust"]["panel"] == "evaluator"
    holds = "yes" if report["holds_under_every_member"] else "no"
    page = write_report(evaluator_run, space_for(folder.read_config())).read_text(encoding="utf-8")
    verdict = page[page.index('id="verdict"') : page.index('id="progress"')]
    assert f"Holds under every copy of the panel (interval above 0.5): <b>{holds}</b>" in verdict
    assert "gwent_lite_evaluator_2.npz" in verdict and "wins 0.528 [0.524, 0.532] against it" in verdict
    assert "$ deckopt exploit gwent_lite evaluator --decks runs/ev_main" in verdict
    assert "Spearman 0.993-0.995" in verdict and "deckopt study agents runs/agree8k" in verdict
    text = validation_table(report, space_for(folder.read_config()))
    assert f"holds under every copy (interval above 0.5): {holds}" in text
    assert re.search(r"gwent_lite_evaluator_1\.npz +\d\.\d{3} +\[\d\.\d{3}, \d\.\d{3}\] +\d+", text)
    assert "trust in evaluator (docs/results/evaluators.md): a best response" in text


def test_decks_validate_shows_them_for_any_agent(evaluator_run, capsys):
    assert cli("decks", evaluator_run, "--validate", "--games", 6, "--panel", "decks/flat.toml") == 0
    out = capsys.readouterr().out
    assert "holds under every copy (interval above 0.5): " in out and "0.528 [0.524, 0.532]" in out
    flags = ["--validate", "--games", 6, "--panel", "decks/flat.toml"]
    assert cli("decks", evaluator_run, *flags, "--agent", "heuristic") == 0
    out = capsys.readouterr().out
    assert "holds under every copy" not in out
    assert "trust in heuristic: no exploitability or agreement figures recorded" in out


def test_gwent_abilities_validation_shows_its_evaluators_copies_and_figures():
    config = load_config(game="gwent_abilities", games_per_task=50, seed=0)
    space = GwentAbilitiesSpace(config)
    deck = space.references(["decks/gwent_abilities/bond.toml"])[0].cards
    with Mapper(1) as pmap:
        report = space.scorer(config).validate(
            deck, pmap, seed=1, games=6, panel=["decks/gwent_abilities/spy_medic.toml"]
        )
    assert report["agent"] == "gwent_abilities_evaluator" and len(report["members"]) == 3
    assert report["trust"]["exploitability"]["score"] == 0.585
    text = validation_table(report, space)
    assert "holds under every copy" in text and "0.585 [0.568, 0.602]" in text
    html = render_blocks(verdict_blocks({"cards": list(deck)}, report, space))
    assert "Holds under every copy of the panel" in html and "spy_medic" in html
