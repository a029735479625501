"""Real headless Chromium (Debian's package) driven through Playwright's Python API.

Without Chromium the browser tests skip with a reason; under CI they fail instead (see
``tests/guards.py``), so a CI image that lost its browser cannot pass by skipping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.guards import unavailable
from tests.shared_data import CHROMIUM, CHROMIUM_ARGS, find_chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")  # the sync API keeps an event loop running while open
def browser() -> Iterator[object]:
    chromium = find_chromium()
    if chromium is None:
        unavailable(f"Chromium not found at {CHROMIUM} or on PATH")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@dataclass
class Visit:
    """A page opened from disk, with everything it tried to do recorded."""

    page: object
    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    @property
    def foreign_requests(self) -> list[str]:
        """Every request other than the page itself: a self-contained page makes none."""
        return [url for url in self.requests if url != self.url]


@pytest.fixture
def open_page(browser: object) -> Iterator[Callable[[Path], Visit]]:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Request, Route

    assert isinstance(browser, Browser)
    context = browser.new_context(viewport={"width": 1360, "height": 900}, java_script_enabled=True)

    def block_network(route: Route) -> None:
        # Recorded by the "request" listener first; then stopped, so a bug cannot reach out.
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", block_network)

    def visit(path: Path) -> Visit:
        page = context.new_page()
        record = Visit(page=page, url=path.resolve().as_uri())

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                record.console_errors.append(message.text)

        def on_dialog(dialog: Dialog) -> None:
            record.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        def on_request(request: Request) -> None:
            record.requests.append(request.url)

        page.on("console", on_console)
        page.on("pageerror", lambda error: record.page_errors.append(str(error)))
        page.on("dialog", on_dialog)
        page.on("request", on_request)
        page.goto(record.url, wait_until="load")
        return record

    yield visit
    context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
