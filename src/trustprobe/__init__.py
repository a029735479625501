"""trustprobe: tells whether an AI agent can be trusted, with evidence a person can check."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("trustprobe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
