"""The one exception type for a user's mistake (bad game name, illegal deck, illegal action...).

Every package raises `UserError` (a `ValueError`) for bad input; the command line turns it into one
line on stderr and exit code 2. Anything else is a bug and keeps its traceback.
"""


class UserError(ValueError):
    """A mistake in what the user (or calling code) asked for, explained in one line."""


class IllegalActionError(UserError):
    """An action that is not legal in the current state."""


#: the most characters of an error line that a command prints (a message echoing a long input is cut)
MAX_ERROR_LINE = 1000


def error_line(text: str, limit: int = MAX_ERROR_LINE) -> str:
    """`text` as an error line of at most about `limit` characters: when longer, its start and its end
    (where the hint of what to do stands) around the count of characters left out, so a message that
    echoes a long input shows only a bounded part of it."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]} [... {len(text) - head - tail} characters ...] {text[-tail:]}"


def one_line(exc: BaseException, limit: int = 200) -> str:
    """An exception as one short line (Keras messages and tracebacks of others' code span several)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def with_article(noun: str) -> str:
    """`noun` after "a" or "an" as it is spoken: an exploding_kittens run, a gwent_lite run."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
