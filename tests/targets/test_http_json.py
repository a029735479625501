"""The generic JSON target: template filling and response paths."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.runner.fault_server import Action, FaultServer, Seen
from trustprobe.probes import Probe
from trustprobe.targets import (
    HarnessError,
    HttpTargetConfig,
    PathNotFound,
    create_target,
    fill_template,
    find_path,
)

FIELDS = {
    "task": "Be careful.",
    "input": "Hi {there}",
    "sample": 2,
    "messages": [{"role": "user", "content": "Hi"}],
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ({"q": "{input}"}, {"q": "Hi {there}"}),
        ({"m": "{messages}"}, {"m": [{"role": "user", "content": "Hi"}]}),
        ({"n": "{sample}"}, {"n": 2}),  # a whole-string placeholder keeps the JSON type
        ({"p": "[{task}] {input} #{sample}"}, {"p": "[Be careful.] Hi {there} #2"}),
        ({"keep": "{unknown} {"}, {"keep": "{unknown} {"}),
        ([{"a": ["{task}", 3, None, True]}], [{"a": ["Be careful.", 3, None, True]}]),
    ],
    ids=["text", "messages-as-list", "sample-as-number", "inline", "other-braces", "nested"],
)
def test_fill_template(template: Any, expected: Any) -> None:
    assert fill_template(template, FIELDS) == expected


DOC = {"choices": [{"message": {"content": "answer"}}], "a/b": {"~x": 1}, "n": None}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("choices.0.message.content", "answer"),
        ("/choices/0/message/content", "answer"),
        ("choices.-1.message.content", "answer"),
        ("/a~1b/~0x", 1),  # RFC 6901 escapes
        ("n", None),
    ],
    ids=["dotted", "pointer", "negative-index", "pointer-escapes", "null-value"],
)
def test_find_path(path: str, value: Any) -> None:
    assert find_path(DOC, path) == value


@pytest.mark.parametrize(
    "path", ["choices.1", "choices.x", "missing", "choices.0.message.content.deeper"]
)
def test_find_path_missing(path: str) -> None:
    with pytest.raises(PathNotFound):
        find_path(DOC, path)


@given(st.text(max_size=40), st.text(max_size=40))
def test_template_without_placeholders_is_unchanged(key: str, value: str) -> None:
    if "{" not in value:
        assert fill_template({key: value}, FIELDS) == {key: value}


def _script(seen: Seen, nth: int) -> Action:
    if seen.path == "/number":
        return Action(raw_body=b'{"out": {"text": 5}}')
    return Action(raw_body=b'{"out": {"text": "fine"}, "usage": {"in": 11}}')


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(_script) as running:
        yield running


def _send(config: HttpTargetConfig, env: dict[str, str]) -> Any:
    probe = Probe(
        id="h-1",
        category="over_refusal",
        severity="low",
        task="T",
        input="I",
        expected="comply",
        failure_modes=("over_refusal",),
    )

    async def go() -> Any:
        target = create_target(config, env=env)
        try:
            return await target.send(probe, sample=3)
        finally:
            await target.aclose()

    return asyncio.run(go())


def test_body_method_headers_and_partial_usage(server: FaultServer) -> None:
    config = HttpTargetConfig(
        url=f"{server.url}/agent",
        method="PUT",
        body={"prompt": "{task}\n{input}", "n": "{sample}"},
        response_path="out.text",
        input_tokens_path="usage.in",
        output_tokens_path="usage.out",
        headers_env={"X-Agent-Key": "AGENT_KEY"},
    )
    reply = _send(config, {"AGENT_KEY": "k-123"})
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("fine", 11, None)
    (seen,) = server.seen
    assert (seen.method, seen.body) == ("PUT", {"prompt": "T\nI", "n": 3})
    assert seen.headers["x-agent-key"] == "k-123"


@pytest.mark.parametrize(
    ("path", "response_path", "message"),
    [("/agent", "out.nothing", "no key 'nothing'"), ("/number", "out.text", "holds a int")],
    ids=["path-missing", "not-text"],
)
def test_wrong_answer_shape_is_invalid_response(
    server: FaultServer, path: str, response_path: str, message: str
) -> None:
    config = HttpTargetConfig(url=f"{server.url}{path}", response_path=response_path)
    with pytest.raises(HarnessError, match=message) as caught:
        _send(config, {})
    assert caught.value.error_class == "invalid_response"
