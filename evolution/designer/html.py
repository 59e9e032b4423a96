"""The pieces a run report is made of, as data: paragraphs, notes, tables, images, a bar chart.

Code that builds a report (the report's sections, each deck space's verdict) returns lists of these
blocks and never writes HTML: the page is rendered by a Jinja2 template with autoescape on
(templates/report.html), so every text from a run folder, whatever it holds, is shown as text.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from jinja2 import Environment, PackageLoader, StrictUndefined


@dataclass(frozen=True)
class Text:
    """Plain text in an element `tag` (a paragraph, a heading h3, preformatted pre); `cls` a CSS
    class of the page (note, verdict, deck)."""

    text: str
    cls: str = ""
    tag: str = "p"
    strong: str = ""  # a part in bold after `text`, then `tail`
    tail: str = ""
    kind: str = field(default="text", init=False)


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells; columns in `left` aligned left, `classes` one CSS class a row."""

    head: list
    rows: list[list]
    left: frozenset[int] = frozenset()
    classes: list[str] | None = None
    kind: str = field(default="table", init=False)

    def row_class(self, n: int) -> str:
        return self.classes[n] if self.classes else ""


@dataclass(frozen=True)
class Image:
    """A PNG shown inline (a data URI: the page needs no other file)."""

    png: bytes
    alt: str
    kind: str = field(default="image", init=False)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")


@dataclass(frozen=True)
class Details:
    """Blocks folded under a summary line."""

    summary: str
    blocks: list
    kind: str = field(default="details", init=False)


@dataclass(frozen=True)
class Bars:
    """A bar chart drawn as inline SVG (no script, no image file): one bar per label."""

    labels: list
    counts: list[int]
    what: str
    kind: str = field(default="bars", init=False)

    BAR, GAP, HEIGHT = 18, 4, 70

    @property
    def width(self) -> int:
        return 30 + len(self.labels) * (self.BAR + self.GAP)

    def bars(self) -> list[dict]:
        """Each bar's geometry: x, its top y, height, the count and the label."""
        top = max(max(self.counts, default=1), 1)
        out = []
        for k, (label, n) in enumerate(zip(self.labels, self.counts)):
            h = round(self.HEIGHT * n / top)
            out.append({"x": 24 + k * (self.BAR + self.GAP), "y": self.HEIGHT - h + 14, "h": h, "n": n, "label": label})
        return out


@dataclass(frozen=True)
class Answer:
    """The report's answer: the deck in words, facts about it, how it was chosen, and its picture."""

    deck: str
    facts: str
    chosen: str
    picture: Bars
    kind: str = field(default="answer", init=False)


Block = Text | Table | Image | Details | Bars | Answer


def note(text: str) -> Text:
    return Text(text, "note")


def heading(text: str) -> Text:
    return Text(text, tag="h3")


def preformatted(text: str) -> Text:
    return Text(text, tag="pre")


def ci(d: dict) -> str:
    lo, hi = d["ci95"]
    return f"{d['score']:.3f} [{lo:.3f}, {hi:.3f}]"


_TEMPLATES = Environment(
    loader=PackageLoader("evolution.designer", "templates"),
    autoescape=True,  # every value is text: a `<script>` in a run file is shown, never run
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(template: str, **values) -> str:
    """The named template of evolution/designer/templates rendered with `values` (autoescaped)."""
    return _TEMPLATES.get_template(template).render(**values)


def render_blocks(blocks: list) -> str:
    """`blocks` as an HTML fragment, as the report shows them (autoescaped)."""
    render_block = _TEMPLATES.get_template("blocks.html").module.render_block
    return "".join(str(render_block(b)) for b in blocks)
