"""Bad input across every command, table-driven: each case must end with a non-zero exit (2 for a
user's mistake), exactly one line on stderr, no traceback, and the disk exactly as it was.

Each case runs in-process (`deckopt.cli.main`) inside a scratch folder holding the fixtures below;
the folder's every file and its content are compared before and after.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from deckopt.cli import main

ROOT = Path(__file__).resolve().parents[1]
FLAT = str(ROOT / "decks" / "flat.toml")


def _fixtures(tmp: Path) -> None:
    (tmp / "a_file").write_text("not a folder\n")
    (tmp / "a_dir").mkdir()
    (tmp / "empty.npz").write_bytes(b"")
    (tmp / "garbage.npz").write_bytes(b"PK\x03\x04 this is not a zip")
    np.savez(tmp / "hostile.npz", weights=np.array([object()], dtype=object))
    (tmp / "bad.toml").write_text("this is = = not toml\n")
    (tmp / "unknown_key.toml").write_text("no_such_setting = 3\n")
    (tmp / "typo.toml").write_text("pol = 3\n")
    (tmp / "nan_lr.toml").write_text("learning_rate = nan\n")
    (tmp / "not_utf8.toml").write_bytes(b"\xff\xfe\x00name = 1\n")
    (tmp / "five.toml").write_text('name = "five"\ncards = [20, 20, 20, 20, 20]\n[rules]\nmin_cards = 5\n')
    (tmp / "illegal.toml").write_text('name = "big"\ncards = [' + ", ".join(["9"] * 25) + "]\n")
    (tmp / "word_card.toml").write_text('name = "w"\ncards = ["x"' + ", 4" * 24 + "]\n")
    (tmp / "huge_rules.toml").write_text(
        'name = "huge"\ncards = [' + ", ".join(["1"] * 25) + "]\n[rules]\nmax_total = 1000000000000\n"
    )
    # a folder that looks like no run at all, holding a file a careless writer would overwrite
    (tmp / "not_a_run").mkdir()
    (tmp / "not_a_run" / "model.npz").write_bytes(b"precious")
    # an evolution run folder with a damaged checkpoint
    run = tmp / "broken_run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"seed": 0}))
    (run / "checkpoints" / "checkpoint.json").write_text('{"generation": 3, "pool": [["x"]]}')
    (tmp / "existing.toml").write_text("keep me\n")
    (tmp / "old_tournament").mkdir()
    (tmp / "old_tournament" / "tournament.json").write_text('{"results": "of an earlier tournament"}')
    (tmp / "huge_layers.toml").write_text("hidden_layers = [100000, 100000]\n")
    (tmp / "huge_pool.toml").write_text("pool = 100000000\n")
    # study folders holding a truncated ground truth, and one of 2 opponents x 4 deals
    (tmp / "bad_truth").mkdir()
    buffer = io.BytesIO()
    np.savez(buffer, store=np.zeros((3, 2, 4)))
    (tmp / "bad_truth" / "truth.npz").write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    (tmp / "small_truth").mkdir()
    np.savez(tmp / "small_truth" / "truth.npz", store=np.zeros((3, 2, 4)))
    (tmp / "seeded_truth").mkdir()  # the default flags but --seed 3
    settings = {"seed": 3, "source": None, "random_decks": 10, "opponents": 8, "deals": 300, "agent": "pretrained"}
    np.savez(tmp / "seeded_truth" / "truth.npz", store=np.zeros((3, 8, 300)), settings=np.array(json.dumps(settings)))
    (tmp / "text_truth").mkdir()  # a store of strings
    np.savez(tmp / "text_truth" / "truth.npz", store=np.full((3, 8, 300), "x"))
    # evolution runs (copies of a finished one) with a score as text, a generations file, a huge RNG state
    fixture = Path(__file__).parent / "fixtures" / "evolve" / "gwent_racing"
    for name in ("text_score_run", "generations_file_run", "rng_run"):
        shutil.copytree(fixture, tmp / name)
    gen = tmp / "text_score_run" / "generations" / "gen_0001.json"
    data = json.loads(gen.read_text())
    data["decks"][0]["score"] = "0.5"
    gen.write_text(json.dumps(data))
    shutil.rmtree(tmp / "generations_file_run" / "generations")
    (tmp / "generations_file_run" / "generations").write_text("not a folder")
    checkpoint = tmp / "rng_run" / "checkpoints" / "checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["rng"]["state"]["inc"] = 2**200
    checkpoint.write_text(json.dumps(data))
    # an evolution run whose generation file is valid JSON of the wrong shape
    odd = tmp / "odd_run"
    (odd / "generations").mkdir(parents=True)
    (odd / "config.json").write_text(json.dumps({"seed": 0}))
    best = {"cards": [4] * 25, "score": 0.5, "ci95": [0.4, 0.6], "games": 10}
    generations = [{"generation": g, "best": best} for g in (0, 1)]
    (odd / "best_decks.json").write_text(json.dumps({"run": "odd_run", "generations": generations}))
    (odd / "generations" / "gen_0001.json").write_text("[1, 2, 3]")
    # an evolution run holding matchups of the heuristic at 4 games per pair
    (tmp / "matchups_run").mkdir()
    (tmp / "matchups_run" / "config.json").write_text(json.dumps({"seed": 0}))
    (tmp / "matchups_run" / "matchups.json").write_text(json.dumps({"agent": "heuristic", "games_per_pair": 4}))
    # settings nested deeper than any recursion limit
    (tmp / "deep.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    (tmp / "deep.json").write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    # a training run whose checkpoint says it has played -5 episodes, and its finished model
    neg = tmp / "negative_run"
    (neg / "checkpoints").mkdir(parents=True)
    (neg / "config.json").write_text(json.dumps({"game": "tic_tac_toe", "algo": "dqn"}))
    state = {"rows": [], "last_eval": {}, "seconds": 1.0, "episodes": -5, "updates": 0}
    np.savez(neg / "checkpoints" / "checkpoint.npz", state=np.array(json.dumps(state)))
    (neg / "model.npz").write_bytes(b"finished model")
    kittens = tmp / "kittens_training_run"  # a training run of another game
    shutil.copytree(neg, kittens)
    (kittens / "config.json").write_text(json.dumps({"game": "exploding_kittens", "algo": "dqn"}))
    # a model whose every weight is NaN
    with np.load(ROOT / "agents" / "pretrained" / "tic_tac_toe.npz") as data:
        arrays = {k: (np.full_like(v, np.nan) if k.startswith(("kernel", "bias")) else v) for k, v in data.items()}
    np.savez(tmp / "nan_model.npz", **arrays)
    # a model file whose array header declares 4 GB that the file does not hold
    with zipfile.ZipFile(tmp / "crafted.npz", "w") as z:
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10**9,)})
        z.writestr("metadata.npy", header.getvalue() + b"\0" * 64)
    # an evolution run whose checkpoint was deleted after generations were saved
    gone = tmp / "no_checkpoint_run"
    (gone / "generations").mkdir(parents=True)
    (gone / "config.json").write_text(json.dumps({"seed": 0}))
    (gone / "generations" / "gen_0000.json").write_text('{"generation": 0, "decks": []}')


def _snapshot(tmp: Path) -> dict[str, str]:
    out = {}
    for p in sorted(tmp.rglob("*")):
        rel = str(p.relative_to(tmp))
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "<dir>"
    return out


# (command line, a word the one error line must contain); paths are relative to the scratch folder
CASES = [
    # play
    ("play chess", "unknown game"),
    ("play tic_tac_toe --seat 5", "seat"),
    ("play tic_tac_toe --seed -1", "seed"),
    ("play tic_tac_toe --vs nobody", "unknown agent spec"),
    ("play gwent_lite --deck missing.toml", "not found"),
    # match
    ("match chess random random --games 10", "unknown game"),
    ("match tic_tac_toe random random random --games 10", "seats 2"),
    ("match tic_tac_toe random random --games 0", "--games"),
    ("match tic_tac_toe random random --games 1000000000", "--games"),
    ("match tic_tac_toe random random --games 99999999999999999999", "--games"),
    ("match tic_tac_toe random random --games ten", "--games"),
    ("match tic_tac_toe random random --games 10 --seed -1", "--seed"),
    ("match tic_tac_toe random random --games 10 --seed 4294967296", "--seed"),
    ("match tic_tac_toe random mcts:99999999999999999999999 --games 10", "simulations"),
    ("match tic_tac_toe random mcts:0 --games 10", "simulations"),
    ("match tic_tac_toe random mcts:400,k=2 --games 10", "unknown option"),
    ("match connect_four random minimax --games 10", "minimax"),
    ("match gwent_lite random random --games 10 --deck missing.toml", "not found"),
    ("match gwent_lite random random --games 10 --deck a_dir", "folder"),
    ("match gwent_lite random random --games 10 --deck bad.toml", "TOML"),
    ("match gwent_lite random random --games 10 --deck not_utf8.toml", "UTF-8"),
    ("match gwent_lite random random --games 10 --deck illegal.toml", "deck"),
    ("match gwent_lite random random --games 10 --deck word_card.toml", "card"),
    ("match gwent_lite random random --games 10 --deck huge_rules.toml", "max_total"),
    ("match gwent_lite random random --games 10 --deck five.toml --deck " + FLAT, "rules"),
    ("match gwent_lite random random --games 10 --deck " + FLAT + " --deck five.toml", "rules"),
    ("match tic_tac_toe random random --games 10 --deck " + FLAT, "gwent_lite"),
    ("match tic_tac_toe random random --games 10 --players 3", "does not apply"),
    ("match durak random random --games 10 --players 5", "num_players"),
    ("match durak random random --games 10 --set max_bouts", "KEY=VALUE"),
    ("match durak random random --games 10 --set max_bouts=x", "max_bouts"),
    ("match exploding_kittens random random --games 10 --set bogus=1", "bogus"),
    ("match incan_gold random random --games 10 --players 9", "num_players"),
    ("match durak random random --games 10 --set num_players=4", "--players"),
    ("match tic_tac_toe random random --games 10 --set num_players=4", "fixed number of players"),
    ("match tic_tac_toe random random --games 10 --set bogus=1", "takes no settings"),
    ("match gwent_lite random random --games 10 --set rules=1", "--deck"),
    ("match durak random random --games 10 --set max_bouts=9 --set max_bouts=8", "twice"),
    ("match incan_gold " + str(ROOT / "agents/pretrained/az_incan_gold_3p.npz") + " heuristic --games 10", "az:"),
    ("match tic_tac_toe random missing.npz --games 10", "missing.npz"),
    ("match tic_tac_toe random empty.npz --games 10", "empty.npz"),
    ("match tic_tac_toe random garbage.npz --games 10", "garbage.npz"),
    ("match tic_tac_toe random hostile.npz --games 10", "hostile.npz"),
    ("match tic_tac_toe random " + str(ROOT / "agents/pretrained/connect_four.npz") + " --games 10", "connect_four"),
    # eval
    ("eval tic_tac_toe random --games 99999999999999999999", "--games"),
    ("eval tic_tac_toe random --games 10 --seed -1", "--seed"),
    ("eval tic_tac_toe random --games 10 --vs nobody", "unknown agent spec"),
    ("eval chess random --games 10", "unknown game"),
    # tournament
    ("tournament tic_tac_toe random --games 10", "at least two"),
    ("tournament tic_tac_toe random heuristic --games 10 --out a_file", "a file"),
    ("tournament tic_tac_toe random heuristic --games 10 --out a_file/sub", "a file"),
    ("tournament tic_tac_toe random heuristic --games 10 --anchor minimax", "anchor"),
    ("tournament tic_tac_toe random heuristic --games 10 --seed 4294967296", "--seed"),
    ("tournament tic_tac_toe random nobody --games 10 --out new_out", "unknown agent spec"),
    ("tournament tic_tac_toe random heuristic --games 10 --out old_tournament", "already holds"),
    # train
    ("train chess --episodes 10", "unknown game"),
    ("train tic_tac_toe --episodes 10 --seed -1", "--seed"),
    ("train tic_tac_toe --episodes 10 --out a_file", "a_file"),
    ("train tic_tac_toe --episodes 10 --out not_a_run", "not_a_run"),
    ("train tic_tac_toe --episodes 10 --config a_dir", "folder"),
    ("train tic_tac_toe --episodes 10 --config missing.toml", "not found"),
    ("train tic_tac_toe --episodes 10 --config bad.toml", "TOML"),
    ("train tic_tac_toe --episodes 10 --config unknown_key.toml", "no_such_setting"),
    ("train tic_tac_toe --episodes 10 --config nan_lr.toml", "learning_rate"),
    ("train tic_tac_toe --resume missing_run", "missing_run"),
    ("train tic_tac_toe --resume not_a_run", "not_a_run"),
    # sizes and thread counts beyond reason: refused before TensorFlow starts or memory is taken
    ("train tic_tac_toe --episodes 32 --tf-threads 100000 --out new_run", "tf_threads"),
    ("train tic_tac_toe --algo alphazero --episodes 32 --simulations 1000000000 --out new_run", "simulations"),
    ("train tic_tac_toe --algo alphazero --episodes 32 --eval-simulations 1000000 --out new_run", "eval_simulations"),
    ("train tic_tac_toe --algo alphazero --episodes 32 --conv-channels 100000 --out new_run", "conv_channels"),
    ("train tic_tac_toe --episodes 32 --hidden-layers 100000000 --out new_run", "hidden_layers"),
    ("train tic_tac_toe --episodes 32 --hidden-layers " + ",".join(["8"] * 100) + " --out new_run", "hidden_layers"),
    ("train tic_tac_toe --episodes 32 --replay-size 10000000000 --out new_run", "replay_size"),
    ("train tic_tac_toe --algo alphazero --episodes 32 --replay-size 10000000000 --out new_run", "replay_size"),
    ("train tic_tac_toe --algo nfsp --episodes 32 --sl-reservoir-size 1000000000 --out new_run", "sl_reservoir_size"),
    ("train tic_tac_toe --algo nfsp --episodes 32 --rl-replay-size 1000000000 --out new_run", "rl_replay_size"),
    ("train tic_tac_toe --episodes 32 --games-per-batch 100000000 --out new_run", "games_per_batch"),
    ("train tic_tac_toe --algo ppo --episodes 32 --minibatch-size 100000000 --out new_run", "minibatch_size"),
    ("train tic_tac_toe --algo ppo --episodes 32 --update-epochs 100000000 --out new_run", "update_epochs"),
    ("train tic_tac_toe --episodes 32 --batch-size 100000000 --out new_run", "batch_size"),
    ("train tic_tac_toe --episodes 32 --updates-per-batch 100000000 --out new_run", "updates_per_batch"),
    ("train tic_tac_toe --episodes 32 --eval-games 100000000000 --out new_run", "eval_games"),
    ("train tic_tac_toe --episodes 32 --selfplay-shards 100000000 --out new_run", "selfplay_shards"),
    ("train tic_tac_toe --episodes 32 --config huge_layers.toml --out new_run", "hidden_layers"),
    # evolve
    ("evolve --seed -1", "--seed"),
    ("evolve --pool 1 --out new_run", "pool"),
    ("evolve --games-per-pair 3 --out new_run", "games_per_pair"),
    ("evolve --config missing.toml", "not found"),
    ("evolve --config unknown_key.toml --out new_run", "no_such_setting"),
    ("evolve --config typo.toml --out new_run", "did you mean pool"),
    ("evolve --out a_file", "a_file"),
    ("evolve --out not_a_run", "not_a_run"),
    ("evolve --resume missing_run", "missing_run"),
    ("evolve --resume broken_run", "checkpoint"),
    ("evolve --resume no_checkpoint_run --generations 4", "checkpoint"),
    ("evolve --panel missing.toml --out new_run", "missing.toml"),
    ("evolve --agent nobody --out new_run --generations 1", "nobody"),
    ("evolve --backend loky --scheduler tcp://127.0.0.1:1 --out new_run", "scheduler"),
    # decks
    ("decks missing_run", "missing_run"),
    ("decks a_file", "a_file"),
    ("decks broken_run --generation 999", "999"),
    ("decks broken_run --validate --seed -1", "--seed"),
    # bench
    ("bench nothing", "nothing"),
    # --jobs: one process per job, so a runaway count is refused before any starts
    ("matchups " + FLAT + " " + FLAT + " --games 2 --jobs 100000", "--jobs"),
    ("matchups " + FLAT + " " + FLAT + " --games 2 --jobs 0", "--jobs"),
    ("advise " + FLAT + " --jobs 100000", "--jobs"),
    ("study racing new_out --jobs 65", "--jobs"),
    ("report broken_run --jobs 100000", "--jobs"),
    ("decks broken_run --validate --jobs 100000", "--jobs"),
    ("train tic_tac_toe --episodes 10 --jobs 100000", "--jobs"),
    ("evolve --jobs 100000 --out new_run", "jobs"),
    ("exploit gwent_lite random --out new_out --jobs 100000", "--jobs"),
    ("exploit gwent_lite random --out new_out --task-timeout 0", "--task-timeout"),
    # sizes with a bound, refused before any work
    ("evolve --pool 100000000 --out new_run", "pool"),
    ("evolve --games-per-pair 100000000000 --out new_run", "games_per_pair"),
    ("evolve --archive --archive-cells 1000000x1000000 --out new_run", "archive_cells"),
    ("exploit gwent_lite random --out new_out --deals 100000000", "--deals"),
    ("exploit gwent_lite random --out new_out --random-pairings 100000000", "--random-pairings"),
    ("exploit gwent_lite random --out a_file", "a file"),
    ("study agents new_out --spread 100000000", "--spread"),
    ("check tic_tac_toe --games 1000000000", "--games"),
    ("evolve --generations 100000000 --out new_run", "generations"),
    ("evolve --validation-games 100000000 --out new_run", "validation_games"),
    ("evolve --hof-size 100000000 --out new_run", "hof_size"),
    ("evolve --random-opponents 100000000 --out new_run", "random_opponents"),
    ("evolve --playoff-games-per-pair 100000000 --out new_run", "playoff_games_per_pair"),
    ("evolve --games-per-task 100000000 --out new_run", "games_per_task"),
    ("evolve --task-timeout 1e12 --out new_run", "task_timeout"),
    ("evolve --config huge_pool.toml --out new_run", "pool"),
    ("evolve --game exploding_kittens --games-per-deck 100000000 --out new_run", "games_per_deck"),
    ("matchups " + FLAT + " " + FLAT + " --games 100000000", "--games"),
    ("matchups " + FLAT + " " + FLAT + " --task-timeout 0", "--task-timeout"),
    ("matchups " + FLAT + " " + FLAT + " --task-timeout nan", "--task-timeout"),
    ("advise " + FLAT + " --games 100000000", "--games"),
    ("advise " + FLAT + " --check 100000000", "--check"),
    ("advise " + FLAT + " --contribution-games 100000000", "--contribution-games"),
    ("advise " + FLAT + " --task-timeout -1", "--task-timeout"),
    ("eval connect_four random --games 2 --perfect 99999999999", "--perfect"),
    ("decks broken_run --validate --games 100000000", "--games"),
    ("decks broken_run --matchups 100000000", "--matchups"),
    ("report broken_run --matchups 100000000", "--matchups"),
    ("study racing new_out --deals 100000000", "--deals"),
    ("study racing new_out --replicates 100000000", "--replicates"),
    ("study kittens new_out --games-per-composition 100000000", "--games-per-composition"),
    ("study agents new_out --task-timeout 1e9", "--task-timeout"),
    ("train-pruning --out new_out --simulations 100000000000", "--simulations"),
    ("train-pruning --out new_out --epochs 100000000", "--epochs"),
    ("train-pruning --out new_out --seed -1", "--seed"),
    # study: every argument judged before the first game
    ("study racing new_out --margin nan", "--margin"),
    ("study racing new_out --margin 2", "--margin"),
    ("study racing new_out --z 0", "--z"),
    ("study racing new_out --fixed-games x", "--fixed-games"),
    ("study racing new_out --fixed-games 0.5", "--fixed-games"),
    ("study racing new_out --se fancy", "--se"),
    ("study racing new_out --source missing_run", "missing_run"),
    ("study racing a_file", "a file"),
    ("study racing bad_truth", "damaged"),
    ("study racing small_truth", "--deals"),
    ("study racing seeded_truth", "--seed 3"),
    ("study racing text_truth", "not numbers"),
    ("study kittens new_out --runs nonexistent", "nonexistent"),
    ("study kittens new_out --game gwent_lite", "leave out --game"),
    ("study kittens new_out --runs broken_run", "broken_run"),
    ("study kittens new_out --runs text_score_run", "a gwent_lite run, not an exploding_kittens run"),
    ("study kittens new_out --compositions 0", "--compositions 0"),
    # messages that say what is wrong, in one short line
    ("train tic_tac_toe --resume text_score_run", "an evolution run folder (deckopt evolve), not a training run"),
    ("decks text_score_run --agent random", "--agent applies to --validate, --matchups and --archetypes"),
    ("match tic_tac_toe random negative_run/checkpoints/checkpoint.npz --games 2", "a training checkpoint"),
    ("study agents new_out --decks missing.toml", "missing.toml"),
    ("study agents new_out --yardstick missing_dir", "missing_dir"),
    # damaged and crafted files
    ("match tic_tac_toe random crafted.npz --games 10", "crafted.npz"),
    ("match tic_tac_toe random nan_model.npz --games 10", "finite"),
    ("eval tic_tac_toe nan_model.npz --games 10", "finite"),
    ("decks odd_run --generation 1", "generation file"),
    ("decks text_score_run", "decks[0].score must be a number"),
    ("decks text_score_run --json", "decks[0].score must be a number"),
    ("evolve --resume text_score_run --generations 3", "decks[0].score must be a number"),
    ("evolve --resume generations_file_run --generations 3", "generations is a file"),
    ("evolve --resume rng_run --generations 3", "rng.state.inc must be in"),
    ("match gwent_lite random random --games 10 --deck deep.toml", "nested too deeply"),
    ("match gwent_lite random random --games 10 --deck deep.json", "nested too deeply"),
    ("evolve --config deep.toml --out new_run", "nested too deeply"),
    ("evolve --config deep.json --out new_run", "nested too deeply"),
    ("train tic_tac_toe --config deep.toml --out new_run", "nested too deeply"),
    ("train tic_tac_toe --resume negative_run", "episodes must be in [0, (2^63 - 1)], got -5"),
    ("train tic_tac_toe --resume kittens_training_run", "is an exploding_kittens run, not tic_tac_toe"),
    # arguments judged before minutes of work
    ("evolve --scheduler not-a-url --out new_run", "scheduler"),
    ("evolve --scheduler tcp://[::1 --out new_run", "scheduler"),
    ("evolve --scheduler file:///etc/passwd --out new_run", "scheduler"),
    ("evolve --scheduler localhost:99999 --out new_run", "scheduler"),
    ("train-pruning --out new_out --bimodal garbage", "--bimodal"),
    ("train-pruning --out new_out --bimodal 1,2,3", "--bimodal"),
    ("train-pruning --out new_out --bimodal 0.5,0.4,-1,0.5,0.5,0.1", "--bimodal"),
    ("train-pruning --out new_out --bimodal nan,0.4,0.1,0.5,0.5,0.1", "--bimodal"),
    ("train-pruning --out new_out --arms bimodal --fit-spec nobody", "mcts spec"),
    ("train-pruning --out a_file", "a file"),
    ("report matchups_run --matchups 8", "delete it"),
    ("report matchups_run --matchups 4 --agent random", "delete it"),
    ("report matchups_run --agent random", "--matchups"),
    # a training run where an evolution run is expected
    ("decks negative_run", "training run"),
    ("report negative_run", "training run"),
    ("evolve --resume negative_run", "training run"),
]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad_inputs")
    _fixtures(tmp)
    return tmp


@pytest.mark.parametrize("line,word", CASES, ids=[c[0][:60] for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(line, word, scratch, monkeypatch, capsys):
    monkeypatch.chdir(scratch)
    before = _snapshot(scratch)
    try:
        code = main(line.split())
    except SystemExit as exc:  # argparse refusals
        code = exc.code
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2, f"exit {code}: {err[-800:]}"
    assert len(lines) == 1, err[-1500:]
    assert "Traceback" not in err
    assert word.lower() in lines[0].lower(), lines[0]
    after = _snapshot(scratch)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert not changed, f"files changed: {sorted(changed)}"
    for leftover in ("new_run", "new_out"):
        shutil.rmtree(scratch / leftover, ignore_errors=True)


def test_enough_cases_cover_every_command():
    commands = {c[0].split()[0] for c in CASES}
    assert commands == {
        "play",
        "match",
        "eval",
        "tournament",
        "train",
        "evolve",
        "decks",
        "bench",
        "study",
        "matchups",
        "advise",
        "report",
        "train-pruning",
        "exploit",
        "check",
    }
    assert len(CASES) >= 150


# --- disks: a full one and a read-only one (tmpfs mounts: root only) ---------------------------
DISK_CASES = [
    ("evolve --generations 1 --pool 4 --games-per-pair 2 --no-validate --out {full}/run", "cannot be written"),
    ("matchups " + FLAT + " " + FLAT + " --games 2 --out {full}/m", "cannot be written"),
    ("tournament tic_tac_toe random heuristic --games 2 --out {full}/t", "cannot be written"),
    ("decks {run} --export {full}/champion.toml", "cannot be written"),
    ("report {ro}/run", "cannot be written"),
    ("decks {ro}/run --matchups 2", "cannot be written"),
    ("decks {ro}/run --export {ro}/champion.toml", "cannot be written"),
    ("train-pruning --out {ro}/tp --bimodal 0.5,0.4,0.1,0.5,0.6,0.1", "cannot be written"),
    ("study racing {ro}/study --random-decks 3 --kept 1", "cannot be written"),
    ("train tic_tac_toe --episodes 8 --out {ro}/train", "not writable"),
    ("train tic_tac_toe --episodes 8 --out {full}/train", "cannot be written"),
]


@pytest.fixture(scope="module")
def disks(tmp_path_factory):
    """{full}: a 1 MB tmpfs left with no free space; {ro}: a read-only tmpfs holding a finished run
    ({ro}/run, also at {run})."""
    import os
    import subprocess

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a full and a read-only tmpfs needs root")
    tmp = tmp_path_factory.mktemp("disks")
    full, ro, run = tmp / "full", tmp / "ro", tmp / "run"
    for d in (full, ro):
        d.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)], capture_output=True).returncode:
            pytest.skip("cannot mount a tmpfs here")
    try:
        argv = "evolve --generations 1 --pool 4 --games-per-pair 2 --no-validate --quiet --jobs 1 --out " + str(run)
        assert main(argv.split()) == 0
        shutil.copytree(run, ro / "run")
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        with open(full / "filler", "wb", buffering=0) as f, contextlib.suppress(OSError):
            while True:  # every free block taken
                f.write(b"\0" * 4096)
        yield {"full": full, "ro": ro, "run": run}
    finally:
        for d in (full, ro):
            subprocess.run(["umount", str(d)], capture_output=True)


@pytest.mark.parametrize("line,word", DISK_CASES, ids=[c[0][:60] for c in DISK_CASES])
def test_a_full_or_read_only_disk_is_one_line_before_the_work(line, word, disks, capsys):
    before = {k: _snapshot(Path(v)) for k, v in disks.items()}
    code = main(line.format(**disks).split())
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err[-1500:]
    assert word in lines[0], lines[0]
    assert {k: _snapshot(Path(v)) for k, v in disks.items()} == before
