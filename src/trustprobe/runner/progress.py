"""Progress display: a rich bar on a terminal, plain periodic lines anywhere else."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from trustprobe.responses import Response
from trustprobe.runner.dispatch import ProgressListener


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("– cases/s" if speed is None else f"{speed:.1f} cases/s", style="cyan")


class ProgressBar:
    """A rich progress bar with rate, ETA and error count."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("[bold]scan"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("[red]{task.fields[errors]} errors"),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None
        self._errors = 0

    def start(self, total: int) -> None:
        """Show the bar."""
        self._task = self._progress.add_task("scan", total=total, errors=0)
        self._progress.start()

    def advance(self, response: Response) -> None:
        """Move the bar by one case."""
        if self._task is None:
            return
        if response.error is not None:
            self._errors += 1
            self._progress.update(self._task, advance=1, errors=self._errors)
        else:
            self._progress.advance(self._task)

    def finish(self) -> None:
        """Draw the final state and release the terminal."""
        self._progress.stop()


class ProgressLog:
    """One plain line every ``interval`` seconds (and at the end), for logs and CI."""

    def __init__(
        self,
        emit: Callable[[str], None],
        *,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self._interval = interval
        self._clock = clock
        self._total = 0
        self._done = 0
        self._errors = 0
        self._started = 0.0
        self._last = 0.0

    def start(self, total: int) -> None:
        """Say how many cases will run."""
        self._total = total
        self._started = self._last = self._clock()
        self._emit(f"scan: {total} cases to run")

    def advance(self, response: Response) -> None:
        """Count a case; emit a line when the interval has passed."""
        self._done += 1
        if response.error is not None:
            self._errors += 1
        now = self._clock()
        if now - self._last >= self._interval:
            self._last = now
            self._emit(self.line(now))

    def finish(self) -> None:
        """Emit the final line."""
        self._emit(self.line(self._clock()))

    def line(self, now: float) -> str:
        """Describe progress at ``now``: done/total, rate, errors, ETA."""
        elapsed = now - self._started
        rate = self._done / elapsed if elapsed > 0 else None
        share = 100.0 * self._done / self._total if self._total else 100.0
        text = f"scan: {self._done}/{self._total} cases ({share:.0f}%)"
        if rate:
            eta = (self._total - self._done) / rate
            text += f", {rate:.1f} cases/s, ETA {eta:.0f} s"
        return text + f", {self._errors} errors"


def progress_for(console: Console, *, interval: float = 10.0) -> ProgressListener:
    """Pick the display: a bar on an interactive terminal, log lines otherwise."""
    if console.is_terminal and not console.is_dumb_terminal:
        return ProgressBar(console)
    return ProgressLog(
        lambda text: console.print(text, markup=False, highlight=False), interval=interval
    )
