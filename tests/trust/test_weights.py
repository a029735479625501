import json
import logging
from pathlib import Path

import pytest
from tests.trust.evidence_factory import NOW, eval_score

from trustprobe.errors import InputError
from trustprobe.trust import (
    DIMENSION_WEIGHTS,
    WEIGHTS_OVERRIDE_ENV,
    Dimension,
    TrustConfig,
    compute_trust_score,
    resolve_weights,
)


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_no_override_means_base_weights() -> None:
    weights = resolve_weights(TrustConfig(), environ={})
    assert weights.source == "base"
    assert weights.warning is None
    assert dict(weights.weights) == dict(DIMENSION_WEIGHTS)


def test_balanced_partial_override_is_merged(tmp_path: Path) -> None:
    # accuracy 0.11 → 0.15 and reliability 0.10 → 0.06: the merged sum stays 1.00.
    path = write(tmp_path / "w.json", {"accuracy": 0.15, "reliability": 0.06})
    weights = resolve_weights(TrustConfig(), override_path=path, environ={})
    assert weights.source == "override"
    assert weights.weights[Dimension.ACCURACY] == 0.15
    assert weights.weights[Dimension.RELIABILITY] == 0.06
    assert weights.weights[Dimension.SAFETY] == 0.09  # untouched dimensions keep the base


def test_off_sum_override_is_rejected_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # accuracy 0.11 → 0.50 makes the merged sum 1.39.
    path = write(tmp_path / "w.json", {"accuracy": 0.5})
    with caplog.at_level(logging.WARNING, logger="trustprobe.trust.weights"):
        weights = resolve_weights(TrustConfig(), override_path=path, environ={})
    assert weights.source == "base"
    assert dict(weights.weights) == dict(DIMENSION_WEIGHTS)
    assert weights.warning is not None and "merged sum = 1.390000" in weights.warning
    assert [r.getMessage() for r in caplog.records] == [weights.warning]
    # The score says which weights it used and why the override is not in force.
    score = compute_trust_score("agent-a", [], now=NOW, weights=weights)
    assert score.weights_source == "base"
    assert weights.warning in score.reasons


def test_path_precedence_argument_then_config_then_environment(tmp_path: Path) -> None:
    argument = write(tmp_path / "a.json", {"accuracy": 0.12, "reliability": 0.09})
    configured = write(tmp_path / "c.json", {"accuracy": 0.13, "reliability": 0.08})
    environment = write(tmp_path / "e.json", {"accuracy": 0.14, "reliability": 0.07})
    env = {WEIGHTS_OVERRIDE_ENV: str(environment)}
    config = TrustConfig(weights_override_path=configured)

    def accuracy(**kwargs: object) -> float:
        return resolve_weights(**kwargs).weights[Dimension.ACCURACY]  # type: ignore[arg-type]

    assert accuracy(config=config, override_path=argument, environ=env) == 0.12
    assert accuracy(config=config, environ=env) == 0.13
    assert accuracy(config=TrustConfig(), environ=env) == 0.14
    assert accuracy(config=None, environ={WEIGHTS_OVERRIDE_ENV: ""}) == 0.11


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        pytest.param({"honesty": 0.1}, "honesty", "unknown dimension", id="unknown-dimension"),
        pytest.param({"accuracy": "0.1"}, "accuracy", "finite number", id="string-weight"),
        pytest.param({"accuracy": -0.01}, "accuracy", "finite number", id="negative-weight"),
        pytest.param({"accuracy": True}, "accuracy", "finite number", id="boolean-weight"),
        pytest.param([0.1], None, "JSON object", id="not-an-object"),
    ],
)
def test_malformed_override_is_an_input_error(
    tmp_path: Path, content: object, field: str | None, message: str
) -> None:
    path = write(tmp_path / "w.json", content)
    with pytest.raises(InputError, match=message) as info:
        resolve_weights(override_path=path, environ={})
    assert info.value.field == field
    assert info.value.path == str(path)


def test_missing_override_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read weight override"):
        resolve_weights(override_path=tmp_path / "absent.json", environ={})


def test_override_changes_the_composite(tmp_path: Path) -> None:
    evidence = [eval_score(Dimension.ACCURACY, 100.0), eval_score(Dimension.RELIABILITY, 0.0)]
    base = compute_trust_score("agent-a", evidence, now=NOW)
    # base: 10 × (0.11 × 100 + 0.10 × 0) / 0.21 = 523.8 → 524
    assert base.composite == 524
    path = write(tmp_path / "w.json", {"accuracy": 0.15, "reliability": 0.06})
    weights = resolve_weights(override_path=path, environ={})
    shifted = compute_trust_score("agent-a", evidence, now=NOW, weights=weights)
    # override: 10 × (0.15 × 100 + 0.06 × 0) / 0.21 = 714.3 → 714
    assert shifted.composite == 714
    assert shifted.weights_source == "override"
    assert shifted.weights[Dimension.ACCURACY] == 0.15
