"""The built-in catalog meets the bar the project promises (issue: probe evaluation core)."""

import itertools
import re
from collections import Counter

import pytest
import re2
from tests.shared_data import CATEGORIES

from trustprobe.probes import Expected, Probe, Severity, builtin_probes

REQUIRED_CATEGORIES = set(CATEGORIES)

CATALOG = builtin_probes()


def test_size_and_breadth() -> None:
    assert len(CATALOG) >= 150
    categories = Counter(p.category for p in CATALOG)
    assert set(categories) >= REQUIRED_CATEGORIES
    assert len(categories) >= 8
    assert {p.severity for p in CATALOG} == set(Severity)
    assert {p.expected for p in CATALOG} == set(Expected)


def test_every_probe_is_documented() -> None:
    for probe in CATALOG:
        assert probe.failure_modes, probe.id
        assert probe.expected_safe_behavior, probe.id
        assert probe.observable_signal, probe.id


def test_over_refusal_probes_expect_compliance() -> None:
    over = [p for p in CATALOG if p.category == "over_refusal"]
    assert over and all(p.expected is Expected.COMPLY for p in over)


# Categories whose unsafe signals are planted tokens (canaries, fake secrets, fake PII). Elsewhere
# (agency, honesty) a signal can match what the agent would *do* or *claim*, absent from the prompt.
PLANTED_CATEGORIES = {
    "prompt_injection",
    "indirect_injection",
    "secret_exfiltration",
    "privacy_pii",
}


def test_canaries_are_common_and_planted() -> None:
    """Planted signals make verdicts near-certain; each plant occurs in what the agent sees."""
    planted = [p for p in CATALOG if p.signals.unsafe]
    assert len(planted) >= 60
    for probe in planted:
        if probe.category not in PLANTED_CATEGORIES or probe.requires_refusal:
            continue  # a refusal-required probe's signals mark the harmful output, not a plant
        context = probe.task + "\n" + probe.input
        unsafe = probe.signals.patterns("unsafe")
        found = [s for s in unsafe if re2.compile("(?i)" + s).search(context)]
        assert found, (probe.id, unsafe)


@pytest.mark.parametrize("probe", CATALOG, ids=lambda p: p.id)
def test_signals_compile_on_the_linear_time_engine(probe: Probe) -> None:
    for pattern in (*probe.signals.patterns("unsafe"), *probe.signals.patterns("safe")):
        re2.compile("(?i)" + pattern)


def test_ids_are_unique_and_prefixed_consistently() -> None:
    ids = [p.id for p in CATALOG]
    assert len(ids) == len(set(ids))
    prefixes: dict[str, set[str]] = {}
    for probe in CATALOG:
        prefixes.setdefault(probe.category, set()).add(probe.id.split("-")[0])
    assert all(len(v) == 1 for v in prefixes.values()), prefixes


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def test_probes_are_distinct_scenarios_not_templates() -> None:
    """No two inputs share most of their vocabulary (a permuted template would)."""
    words = {p.id: _words(p.input) for p in CATALOG}
    for a, b in itertools.combinations(CATALOG, 2):
        wa, wb = words[a.id], words[b.id]
        overlap = len(wa & wb) / max(1, len(wa | wb))
        assert overlap < 0.6, (a.id, b.id, round(overlap, 2))


TOOL_CATALOG = [p for p in CATALOG if p.uses_tools]
TOOL_FAMILIES = {
    "indirect_injection": {"inbox", "web", "file", "ticket", "retrieval"},
    "secret_exfiltration": {"email", "http", "markdown-image", "file-share"},
    "excessive_agency": {"shell", "payments", "permissions"},
    "scope_honesty": {"tool-error"},
    "over_refusal": {"agent-action"},
}


def _seen_by_agent(probe: Probe) -> str:
    """Everything the agent is shown: task, input and every scripted tool result."""
    results = [
        text
        for script in probe.tool_results.values()
        for text in (script.result or "", *(rule.result for rule in script.when))
    ]
    return "\n".join([probe.task, probe.input, *results])


def test_tool_scenarios_cover_every_family() -> None:
    assert len(TOOL_CATALOG) >= 80
    for category, tags in TOOL_FAMILIES.items():
        seen = {t for p in TOOL_CATALOG if p.category == category for t in p.tags}
        assert tags <= seen, (category, tags - seen)
    assert all("tools" in p.tags for p in TOOL_CATALOG)


@pytest.mark.parametrize("probe", TOOL_CATALOG, ids=lambda p: p.id)
def test_tool_scenarios_are_judged_by_what_the_agent_does(probe: Probe) -> None:
    names = [tool.name for tool in probe.tools]
    if probe.expected is Expected.COMPLY:
        assert probe.required_calls, "acting is the help: name the call that must happen"
    else:
        assert probe.unsafe_calls or probe.signals.unsafe
    for pattern in (*probe.unsafe_calls, *probe.safe_calls, *probe.required_calls):
        assert any(re2.fullmatch("(?i)" + pattern.tool, name) for name in names), pattern
    # What an attacker wants in the arguments is planted in what the agent sees.
    if probe.category in PLANTED_CATEGORIES:
        context = _seen_by_agent(probe)
        for pattern in probe.unsafe_calls:
            if pattern.arguments is not None:
                assert re2.search("(?i)" + pattern.arguments, context), pattern
