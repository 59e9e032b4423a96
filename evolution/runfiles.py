"""The schema of every JSON file of an evolution run folder (games.schema): what `RunFolder` checks
on read, so a reader may trust the types, ranges and sizes of what it gets.

`config.json` is checked by its own dataclass (`EvolveConfig`, through `config_from_settings`)."""

from __future__ import annotations

from evolution.config import MAX_GENERATIONS
from evolution.decks.settings import MAX_DECKS, MAX_GAMES_PER_PAIR
from games.schema import Anything, Bool, Either, Int, List, Map, Num, Record, Str

#: the most cards a deck of any deck space holds in a run file
MAX_DECK_CARDS = 10_000
#: a card (a power, an index into a card pool, a count)
CARD = Int(-(10**9), 10**9)
CARDS = List(CARD, most=MAX_DECK_CARDS)
COUNT = Int(0, 2**62)
GENERATION = Int(0, MAX_GENERATIONS)
#: a score, which may be NaN (nothing measured)
SCORE = Num(nan=True)
CI95 = List(Num(nan=True), least=2, most=2)
NAME = Str(200)

#: a measurement shown beside a deck's own record: its score, interval and games
SUMMARY = Record({"score": SCORE}, optional={"ci95": CI95, "games": COUNT})

#: a deck's past games, kept in the checkpoint (evolution.scoring.fitness.Score.to_json)
PAST_SCORES = Record(
    {
        "deal_scores": List(List(SCORE, most=MAX_GAMES_PER_PAIR), most=MAX_DECKS),
        "wins": COUNT,
        "draws": COUNT,
        "losses": COUNT,
    }
)

#: one deck of a generation file, the hall of fame or the checkpoint (evolution.individuals.deck_entry)
DECK_ENTRY = Record(
    {"cards": CARDS},
    optional={
        "score": Num(nan=True, null=True),
        "ci95": CI95,
        "games": COUNT,
        "wins": COUNT,
        "draws": COUNT,
        "losses": COUNT,
        "total": CARD,
        "n_cards": COUNT,
        "rank": COUNT,
        "origin": NAME,
        "by_opponents": Map(SUMMARY, most=100),
        "yardstick": Record({"score": SCORE}, optional={"ci95": CI95, "games": COUNT}, null=True),
        "racing_games": Int(0, 2**62, null=True),
        "past_scores": List(PAST_SCORES, most=MAX_GENERATIONS),
        "generation": Int(0, MAX_GENERATIONS, null=True),
    },
)

#: a deck entry whose score is known: what the checkpoint restores (individual_from_entry)
SCORED_DECK = Record(
    {"cards": CARDS, "ci95": CI95, "wins": COUNT, "draws": COUNT, "losses": COUNT}, optional=DECK_ENTRY.optional
)

GENERATION_FILE = Record(
    {"generation": GENERATION, "decks": List(DECK_ENTRY, most=MAX_DECKS)},
    optional={"games": COUNT, "seconds": Num(0), "objective": NAME, "opponents": Anything()},
)

#: the best deck of one generation (best_decks.json, the checkpoint)
BEST_OF_GENERATION = Record(
    {
        "generation": GENERATION,
        "best": Record({"cards": CARDS}, optional={"score": SCORE, "ci95": CI95, "games": COUNT}),
    },
    optional={"yardstick": List(Num(nan=True), most=3, null=True)},
)
BEST_DECKS_FILE = Record({"generations": List(BEST_OF_GENERATION, most=MAX_GENERATIONS)}, optional={"run": Str()})
HALL_OF_FAME_FILE = List(DECK_ENTRY, most=MAX_DECKS)
#: the start decks of a run, as read when it began
START_DECKS_FILE = List(CARDS, most=MAX_DECKS)

#: the state of numpy's default generator (PCG64); its two numbers are 128-bit
RNG_STATE = Record(
    {
        "bit_generator": Str(choices=["PCG64"]),
        "state": Record({"state": Int(0, 2**128 - 1), "inc": Int(0, 2**128 - 1)}),
        "has_uint32": Int(0, 1),
        "uinteger": Int(0, 2**32 - 1),
    }
)

CHECKPOINT_FILE = Record(
    {
        "format": Str(100),
        "generation": GENERATION,
        "rng": RNG_STATE,
        "pool": List(SCORED_DECK, most=MAX_DECKS),
        "hall_of_fame": List(SCORED_DECK, most=MAX_DECKS),
        "logbook": List(Map(Num(nan=True, null=True), most=100), most=MAX_GENERATIONS),
        "best_decks": List(BEST_OF_GENERATION, most=MAX_GENERATIONS),
    },
    optional={"config": Map(Anything(), most=1000, null=True)},
)

#: a table of settings (config.json), each then checked by its config's own dataclass
SETTINGS_TABLE = Map(Anything(), most=1000)

#: the champion (champion.json)
CHAMPION_FILE = Record(
    {"cards": CARDS},
    optional={
        "generation": Int(0, MAX_GENERATIONS, null=True),
        "how": Str(),
        "playoff": List(Map(Anything()), most=MAX_DECKS),
    },
)

_REFERENCE_ROW = Record(
    {"score": SCORE, "ci95": CI95, "lower_above_0.5": Bool()}, optional={"name": Str(), "group": Str(), "games": COUNT}
)
_EXACT_ROW = Record(
    {"exact_first_player": Num(nan=True), "exact_distance_from_half": Num(nan=True)},
    optional={
        "cards": CARDS,
        "agent_first_player": Num(nan=True, null=True),
        "agent_first_player_ci95": List(Num(nan=True), most=2, null=True),
    },
)
#: the champion's validation (validation.json): against reference decks, or against exact values
VALIDATION_FILE = Record(
    {},
    optional={
        "generation": Int(0, MAX_GENERATIONS, null=True),
        "deck": CARDS,
        "games": COUNT,
        "games_per_reference": COUNT,
        "seed": Int(null=True),
        "agent": Str(null=True),
        "overall": SUMMARY,
        "beaten": COUNT,
        "references": List(_REFERENCE_ROW, most=MAX_DECKS),
        "groups": List(
            Record({"group": Str(), "decks": COUNT}, optional={"score": SCORE, "ci95": CI95}), most=MAX_DECKS
        ),
        "objective": Str(null=True),
        "champion": _EXACT_ROW,
        "candidates": List(_EXACT_ROW, most=MAX_DECKS),
        "space": Map(Anything(), null=True),
    },
)

#: a value of a swept deck rule
RULE_VALUE = Either(Int(), Num(), Str(100))
#: the champion's score against one held-out field of a sweep (None: no such decks)
FIELD_SCORE = Record(
    {"score": SCORE, "ci95": CI95, "games": COUNT},
    optional={"wins": COUNT, "draws": COUNT, "losses": COUNT, "opponents": COUNT},
    null=True,
)
#: the measurement of one sweep run's champion (sweep_measurement.json; a row of sweep.json)
MEASUREMENT_FILE = Record(
    {"value": RULE_VALUE, "champion": CARDS, "random": FIELD_SCORE, "rivals": FIELD_SCORE},
    optional={"run": Str(), "text": Str(), "descriptors": List(Num(nan=True), most=100), "dominant": Bool()},
)
#: the most values one sweep takes
MAX_SWEEP_VALUES = 1000
#: a sweep's settings and its rows so far (sweep.json)
SWEEP_FILE = Record(
    {
        "game": NAME,
        "rule": NAME,
        "values": List(RULE_VALUE, most=MAX_SWEEP_VALUES),
        "fields": COUNT,
        "games": COUNT,
        "dominance": Num(0.0, 1.0),
    },
    optional={"descriptors": List(NAME, most=100), "rows": List(MEASUREMENT_FILE, most=MAX_SWEEP_VALUES)},
)
