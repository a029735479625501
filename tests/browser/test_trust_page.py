"""The trust page in real headless Chromium: the runs behind the score, hostile names inert."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.browser.conftest import Visit
from tests.importers.fixtures import GARAK_REPORT, PROMPTFOO_RESULTS

from trustprobe.importers import builtin_family_mapping, import_results
from trustprobe.trust import EvalEvidence, EvidenceOrigin, compute_trust_score, write_trust_html

pytestmark = pytest.mark.browser

NOW = datetime(2026, 11, 26, tzinfo=UTC)
HOSTILE = '<img id="injected" src=x onerror="alert(1)">'


def test_trust_page_names_every_source_in_chromium(
    open_page: Callable[[Path], Visit], tmp_path: Path, artifacts: Path
) -> None:
    evidence = []
    for tool, path in (("garak", GARAK_REPORT), ("promptfoo", PROMPTFOO_RESULTS)):
        evidence += import_results(
            tool,  # type: ignore[arg-type]
            [path],
            agent_id="shop-bot",
            mapping=builtin_family_mapping(),
        ).evidence
    evidence.append(
        EvalEvidence(
            id="hostile",
            agent_id="shop-bot",
            dimension="accuracy",
            observed_at=NOW,
            score=50,
            source=EvidenceOrigin(tool="homegrown", run_id=HOSTILE, file=HOSTILE, family=HOSTILE),
        )
    )
    score = compute_trust_score("shop-bot", evidence, now=NOW)
    page_path = tmp_path / "trust.html"
    write_trust_html(score, page_path)
    visit = open_page(page_path)
    page: Any = visit.page
    rows = page.locator("#source-table tbody tr")
    assert rows.count() == 3
    tools = [rows.nth(i).locator("th").inner_text() for i in range(3)]
    assert tools == ["garak 0.17.1", "homegrown", "promptfoo 0.121.20"]
    assert "garak-repeat.report.jsonl" in rows.nth(0).inner_text()
    assert HOSTILE in rows.nth(1).inner_text()  # shown as text
    assert page.locator("#injected").count() == 0  # never markup
    assert page.inner_text("[data-metric=composite]") == str(score.composite)
    assert page.locator("#dimension-table tbody tr").count() == 16
    assert visit.console_errors == [] and visit.page_errors == [] and visit.dialogs == []
    assert visit.foreign_requests == []
    page.screenshot(path=str(artifacts / "trust.png"), full_page=True)
