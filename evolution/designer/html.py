"""The HTML pieces every part of the run report is made of (escaped text, tables, images, notes)."""

from __future__ import annotations

import base64
import html


def escape(x) -> str:
    return html.escape(str(x))


def img(png: bytes, alt: str) -> str:
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def note(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>'


def table(head: list[str], rows: list[list], left: set[int] = frozenset(), classes: list[str] | None = None) -> str:
    def cell(tag, k, v):
        return f'<{tag} class="l">{escape(v)}</{tag}>' if k in left else f"<{tag}>{escape(v)}</{tag}>"

    out = ["<table><tr>" + "".join(cell("th", k, h) for k, h in enumerate(head)) + "</tr>"]
    for n, r in enumerate(rows):
        cls = f' class="{classes[n]}"' if classes and classes[n] else ""
        out.append(f"<tr{cls}>" + "".join(cell("td", k, v) for k, v in enumerate(r)) + "</tr>")
    return "".join(out) + "</table>"


def ci(d: dict) -> str:
    lo, hi = d["ci95"]
    return f"{d['score']:.3f} [{lo:.3f}, {hi:.3f}]"
