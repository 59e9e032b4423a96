"""The HTML report of a run: written for a tiny real run, self-contained (no network, no script),
and opened in a real headless Chromium through Selenium at 1280 x 800: no console errors, every
section heading shown, every plot decoded, the champion and its verdict within the first screen, a
screenshot taken. Skipped only when Chromium or its driver is not
installed (apt-get install chromium chromium-driver; pip install selenium)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from agents.parallel import Mapper
from deckopt.cli import main
from evolution.designer.html_report import REPORT_NAME, SECTIONS, write_report
from evolution.designer.matchups import load_decks, play_matchups, write_matchups
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from evolution.scoring import fitness as fit
from evolution.spaces.gwent import GwentDeal, build_agent
from evolution.spaces.registry import space_for
from tests.test_evolution_runfolder import tiny


def space_of(folder: Path):
    return space_for(RunFolder(folder).read_config())


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "run"
    evolve(tiny(generations=2, validate=True, validation_panel=["decks/flat.toml"], validation_games=4), folder)
    return folder


def test_the_report_is_self_contained_and_says_what_the_run_lacks(run):
    page = write_report(run, space_of(run)).read_text(encoding="utf-8")
    for key, title in SECTIONS:
        assert f'<section id="{key}"><h2>{title}</h2>' in page
    assert "<script" not in page.lower() and not re.search(r"(src|href)=\"(https?:|//)", page)
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 2  # fitness and best-deck powers
    assert "no archive in this run" in page and "no matchups in this run folder" in page
    assert "Fixed yardstick decks: decks/yardstick" in page  # the tiny run measures on the yardstick
    assert "against all 1 reference decks" in page and "flat" in page  # the verdict against decks/flat.toml
    # the answer first, the settings last and folded, without the settings of another game or an unused feature
    assert page.index('id="champion"') < page.index('id="verdict"') < page.index('id="progress"')
    assert page.index('id="archive"') < page.index('id="settings"') < page.index("<details>")
    settings = page[page.index('id="settings"') :]
    assert ">games_per_pair<" in settings and ">bounds<" not in settings and ">racing_z<" not in settings
    assert "<svg" in page[: page.index('id="verdict"')]  # the picture of the champion's powers
    champion = json.loads((run / "champion.json").read_text())["cards"]
    facts = page[page.index('id="champion"') : page.index('id="verdict"')]
    assert f"{len(champion)} cards, total {sum(champion)}" in facts  # the numbers of the space's row


def test_matchups_in_the_run_folder_show_in_the_report(run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    decks, rules = load_decks([copy])
    agent = build_agent("heuristic", rules)
    field, _ = load_decks(["decks/flat.toml", "decks/random_1.toml"])
    with Mapper(1) as pmap:
        play = lambda pairings, prefix, progress, what: fit.play_pairings(  # noqa: E731
            pairings, agent, GwentDeal(rules), pmap, 200, prefix, progress, what
        )
        write_matchups(play_matchups(decks, play, 4, 0, field, "heuristic"), copy)
    page = write_report(copy, space_of(copy)).read_text(encoding="utf-8")
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 3
    assert "no matchups in this run folder" not in page and "random_1" in page


def test_the_command_writes_it_and_refuses_what_is_not_a_run(run, tmp_path, capsys):
    assert main(["report", str(run)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {run / REPORT_NAME}"
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not an evolution run folder" in err
    assert main(["report", str(run), "--matchups", "3"]) == 2


def _browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("Chromium or chromedriver not installed (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
    return chromium, driver, webdriver


def test_the_report_opens_in_a_real_browser_without_errors(run, tmp_path):
    chromium, driver, webdriver = _browser()
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    path = write_report(run, space_of(run))
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,800",
        "--hide-scrollbars",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(driver))
    try:
        browser.get(path.as_uri())
        assert browser.title == f"deckopt run {run.name}"
        headings = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
        assert headings == [title for _, title in SECTIONS]
        images = browser.find_elements(By.TAG_NAME, "img")
        assert len(images) == 2
        for img in images:
            assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 0
        severe = [m for m in browser.get_log("browser") if m["level"] == "SEVERE"]
        assert severe == []
        # the first screen (1280 x 800) answers: the champion's cards, its picture and its verdict
        height = browser.execute_script("return window.innerHeight")
        assert browser.execute_script("return window.innerWidth") == 1280 and height <= 800
        for selector in ("#champion .deck", "#champion svg", "#verdict .verdict"):
            box = browser.execute_script(
                "return arguments[0].getBoundingClientRect().toJSON()", browser.find_element(By.CSS_SELECTOR, selector)
            )
            assert box["height"] > 0 and box["bottom"] <= height, (selector, box, height)
        assert "against all 1 reference decks" in browser.find_element(By.CSS_SELECTOR, "#verdict .verdict").text
        shot = tmp_path / "report.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        browser.quit()


def test_a_kittens_run_reports_its_objective_counts_and_exact_values(tmp_path):
    from evolution.config import load_config
    from tests.test_evolution_kittens import TINY

    folder = tmp_path / "ek"
    evolve(load_config(**TINY), folder)  # the end of every run writes report.html
    page = (folder / REPORT_NAME).read_text(encoding="utf-8")
    assert "Against exact values" in page and "exact first-player value" in page
    assert "defuse" in page and "could not be drawn" not in page
    settings = page[page.index('id="settings"') :]
    assert ">bounds<" in settings and ">games_per_pair<" not in settings and ">yardstick_games<" not in settings
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 2


SCRIPT = "<script>alert('run folder')</script>"


def test_text_from_the_run_folder_is_shown_escaped(tmp_path):
    """Whatever a run folder's files hold is text on the page: a `<script>` in the Gwent Abilities
    verdict's `beaten`, the validation's agent, the champion's `how`, config.json's agent and an
    archive of unknown shape all appear escaped, never as markup."""
    from tests.test_gwent_abilities_space import FLAGS

    run = tmp_path / "abilities"
    assert main(["evolve", *FLAGS, "--quiet", "--out", str(run)]) == 0
    validation = json.loads((run / "validation.json").read_text())
    validation.update(beaten=SCRIPT, agent=SCRIPT)
    (run / "validation.json").write_text(json.dumps(validation))
    champion = json.loads((run / "champion.json").read_text())
    (run / "champion.json").write_text(json.dumps({**champion, "how": SCRIPT}))
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "agent": SCRIPT}))
    (run / "archive.json").write_text(json.dumps({"entries": SCRIPT}))
    page = write_report(run, space_of(run)).read_text()
    assert "<script" not in page.lower()
    assert page.count("&lt;script&gt;alert(&#39;run folder&#39;)&lt;/script&gt;") >= 4
    # the typed reader refuses a `beaten` that is no count, and the verdict names why, escaped
    assert "beaten must be a whole number, got &#34;&lt;script&gt;" in page


def test_a_wrongly_typed_validation_is_named_in_the_page(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "evolve" / "gwent_racing", run)
    gen = json.loads((run / "generations" / "gen_0001.json").read_text())
    (run / "champion.json").write_text(json.dumps({"cards": gen["decks"][0]["cards"], "generation": 1}))
    (run / "validation.json").write_text(json.dumps({"overall": {"score": "high"}, "references": [], "generation": 1}))
    assert main(["report", str(run)]) == 0
    assert "not drawn" not in capsys.readouterr().err
    assert "overall.score must be a number, got &#39;high&#39;" in (run / "report.html").read_text()
