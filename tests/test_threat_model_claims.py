"""docs/threat-model.md: every test its claims name exists (a claim without its test is not made)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "threat-model.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)?(::\w+)?`")


def test_every_test_a_claim_names_exists():
    section = PAGE.read_text(encoding="utf-8").split("## Claims", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "tests/" in line]
    assert len(rows) >= 7
    for row in rows:
        file = None
        for path, name in NAMED.findall(row.rsplit(" | ", 1)[1]):
            file = path or file
            source = (ROOT / file).read_text(encoding="utf-8")
            if name:
                assert f"def {name[2:]}(" in source, (file, name)
