"""Block text spooled through the output's directory instead of through the scheduler.

A block's cases rendered as JSON are tens of megabytes; sent back as a task result they are
pickled, sent, received and unpickled before the client writes them, about 9 µs a case of
serial client time. When every worker sees the output's directory (a local cluster, or a
shared mount at the same path), each worker writes its block's text to a file of its own in a
spool directory beside the output, and the client only appends the files to the report in block
order, a copy the kernel makes.

The spool directory is removed at the end of the run, whatever happened: files left by killed
workers or by attempts Dask ran twice go with it. It is renamed away before it is removed, so
a task still running after the run ended cannot create a file in it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import uuid
from enum import StrEnum
from pathlib import Path
from types import TracebackType

from distributed import Client

from trustprobe.errors import ClusterError

logger = logging.getLogger(__name__)

_MARKER = "visible"


class BlockText(StrEnum):
    """How a block's rendered cases reach the report."""

    AUTO = "auto"
    """Through files when every worker sees the spool directory, otherwise as results."""
    FILES = "files"
    """Workers write files in a spool directory beside the output; the client appends them."""
    SEND = "send"
    """Workers send the text back as part of the block's result (any cluster)."""


class SpoolError(ClusterError):
    """Block text could not go through the spool directory; no report was written."""


def write_block_text(directory: str, number: int, text: bytes) -> str:
    """On a worker: write one block's text to a new file in the spool; the file's path.

    Every attempt at a block gets a file of its own, so an attempt that dies half way never
    shares a file with the one whose result the client keeps.
    """
    fd, name = tempfile.mkstemp(prefix=f"block-{number:07d}.", suffix=".json", dir=directory)
    with os.fdopen(fd, "wb") as handle:
        handle.write(text)
    return name


def _sees(marker: str, token: str) -> bool:
    """On a worker: whether the spool's marker file is there with the client's token in it."""
    try:
        return Path(marker).read_text(encoding="ascii") == token
    except OSError:
        return False


class Spool:
    """The run's spool directory beside ``output`` (``None`` path: text goes through results).

    Use as a context manager; the directory and whatever is left in it is removed on exit.
    """

    def __init__(self, client: Client, output: Path, mode: BlockText) -> None:
        """Create the directory and, unless ``mode`` is ``SEND``, check that workers see it.

        Raises:
            SpoolError: ``mode`` is ``FILES`` and some worker does not see the directory.
        """
        self.directory: Path | None = None
        if mode is BlockText.SEND:
            return
        parent = output.resolve().parent
        directory = Path(tempfile.mkdtemp(prefix=f".{output.name}.blocks-", dir=parent))
        try:
            blind = self._blind(client, directory)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        if blind:
            shutil.rmtree(directory, ignore_errors=True)
            if mode is BlockText.FILES:
                raise SpoolError(
                    f"{blind}, so block text cannot go through files there; send it with the"
                    " results instead"
                )
            logger.info("block text sent with results: %s", blind)
            return
        logger.info("block text spooled through %s", directory)
        self.directory = directory

    @staticmethod
    def _blind(client: Client, directory: Path) -> str | None:
        """Why some worker cannot use ``directory``, or ``None`` when every worker sees it."""
        token = uuid.uuid4().hex
        marker = directory / _MARKER
        marker.write_text(token, encoding="ascii")
        seen: dict[str, bool] = client.run(_sees, str(marker), token)
        blind = sorted(worker for worker, sees in seen.items() if not sees)
        if not seen:
            return "no worker is connected to check it sees the output's directory"
        if blind:
            return (
                f"{len(blind)} of {len(seen)} workers do not see {directory.parent}"
                f" (first: {blind[0]})"
            )
        return None

    def take(self, name: str, size: int, what: str) -> Path:
        """The spooled file ``name`` of a finished block, checked to hold ``size`` bytes.

        Raises:
            SpoolError: the file is not in the spool or has another size (the worker wrote to
                a directory the client does not share).
        """
        path = Path(name)
        if self.directory is None or path.parent != self.directory:
            raise SpoolError(f"{what}: its text {name} is not in this run's spool directory")
        try:
            found = path.stat().st_size
        except OSError as exc:
            raise SpoolError(
                f"{what}: the client cannot read the text its worker wrote ({exc}): the"
                " spool directory was removed, or the worker does not share it; no report was"
                " written"
            ) from exc
        if found != size:
            raise SpoolError(
                f"{what}: its text file holds {found} bytes where the worker wrote {size};"
                " no report was written"
            )
        return path

    def close(self) -> None:
        """Remove the directory and everything in it (moved aside first: see the module)."""
        if self.directory is None:
            return
        directory, self.directory = self.directory, None
        removed = directory.with_name(directory.name + ".removed")
        try:
            os.rename(directory, removed)
        except OSError:
            removed = directory
        shutil.rmtree(removed, ignore_errors=True)

    def __enter__(self) -> Spool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
