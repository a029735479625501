"""Scan configuration from TOML/YAML files and flags, with errors located in the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustprobe.errors import InputError
from trustprobe.runner import build_scan_config, merge_config

TOML = """\
probes = ["team-probes.jsonl", "builtin"]
samples = 3
fail_under = 0.9

[target]
kind = "openai"
base_url = "https://llm.internal.example/v1"
model = "support-bot"
api_key_env = "SUPPORT_BOT_KEY"

[target.headers]
X-Team = "trust"

[runner]
concurrency = 16
rate = 5.0
"""

YAML = """\
target:
  kind: http
  url: http://127.0.0.1:8080/agent
  body:
    prompt: "{task}\\n\\n{input}"
  response_path: output.text
runner:
  timeout: 20
categories: [prompt_injection]
"""


def test_toml_config(tmp_path: Path) -> None:
    path = tmp_path / "scan.toml"
    path.write_text(TOML)
    config = build_scan_config({}, config_file=path)
    assert config.target.kind == "openai"
    assert config.target.api_key_env == "SUPPORT_BOT_KEY"
    assert config.target.headers == {"X-Team": "trust"}
    # relative probe files are relative to the config file, not the working directory
    assert config.probes == (str(tmp_path / "team-probes.jsonl"), "builtin")
    assert (config.samples, config.fail_under) == (3, 0.9)
    assert (config.runner.concurrency, config.runner.rate, config.runner.retries) == (16, 5.0, 2)


def test_flags_override_the_file(tmp_path: Path) -> None:
    path = tmp_path / "scan.toml"
    path.write_text(TOML)
    config = build_scan_config(
        {"target": {"model": "support-bot-v2"}, "runner": {"concurrency": 2}, "samples": 1},
        config_file=path,
    )
    assert config.target.model == "support-bot-v2"
    assert config.target.base_url == "https://llm.internal.example/v1"  # kept from the file
    assert (config.runner.concurrency, config.runner.rate, config.samples) == (2, 5.0, 1)


def test_a_target_of_another_kind_replaces_the_file_target(tmp_path: Path) -> None:
    path = tmp_path / "scan.toml"
    path.write_text(TOML)
    config = build_scan_config(
        {"target": {"kind": "python", "callable": "agent:respond"}}, config_file=path
    )
    assert config.target.kind == "python"


def test_yaml_config(tmp_path: Path) -> None:
    path = tmp_path / "scan.yaml"
    path.write_text(YAML)
    config = build_scan_config({}, config_file=path)
    assert config.target.kind == "http"
    assert config.target.body == {"prompt": "{task}\n\n{input}"}
    assert (config.runner.timeout, config.categories) == (20.0, ("prompt_injection",))


@pytest.mark.parametrize(
    ("name", "text", "line", "field", "message"),
    [
        (
            "scan.toml",
            TOML.replace("concurrency = 16", "concurrency = 0"),
            15,
            "runner.concurrency",
            "greater than or equal to 1",
        ),
        (
            "scan.toml",
            TOML.replace('model = "support-bot"', 'model = "m"\napi_key = "sk-123"'),
            9,
            "target.api_key",
            "secrets are never read from configuration",
        ),
        (
            "scan.yaml",
            YAML.replace("response_path: output.text", "response_path: a\n  respnse_format: x"),
            7,
            "target.respnse_format",
            "unknown field",
        ),
        (
            "scan.yaml",
            YAML.replace("kind: http", "kind: carrier-pigeon"),
            2,
            "target.kind",
            "unknown target kind",
        ),
        ("scan.yaml", YAML.replace("timeout: 20", "timeout: [1"), None, None, "not valid YAML"),
        ("scan.toml", "[target\n", None, None, "not valid TOML"),
        ("scan.json", "{}", None, None, "must end in .toml, .yaml or .yml"),
    ],
    ids=[
        "bad-value",
        "inline-secret",
        "unknown-field",
        "unknown-kind",
        "bad-yaml",
        "bad-toml",
        "bad-suffix",
    ],
)
def test_errors_name_file_line_and_field(
    tmp_path: Path, name: str, text: str, line: int | None, field: str | None, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        build_scan_config({}, config_file=path)
    assert caught.value.path == str(path)
    if line is not None:
        assert caught.value.line == line
    if field is not None:
        assert caught.value.field == field


def test_no_target_anywhere_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no target"):
        build_scan_config({"samples": 2})


def test_merge_is_table_by_table() -> None:
    base = {"runner": {"rate": 1, "timeout": 5}, "samples": 2}
    assert merge_config(base, {"runner": {"rate": 3}}) == {
        "runner": {"rate": 3, "timeout": 5},
        "samples": 2,
    }


def test_a_target_table_without_kind_is_merged_with_the_flags_target(tmp_path: Path) -> None:
    """Replaced whole, its options were dropped without a word (a typo in them too)."""
    path = tmp_path / "scan.toml"
    path.write_text("[target]\nmax_response_bytes = 4096\n")
    flags = {"target": {"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}}
    config = build_scan_config(flags, config_file=path)
    assert getattr(config.target, "max_response_bytes", None) == 4096
    path.write_text("[target]\nmax_respones_bytes = 4096\n")
    with pytest.raises(InputError) as caught:
        build_scan_config(flags, config_file=path)
    assert (caught.value.field, caught.value.line) == ("target.max_respones_bytes", 2)
