"""``python -m trustprobe.demo --out DIR``: the same as ``trustprobe demo --out DIR``."""

import sys

from trustprobe.cli.main import main

if __name__ == "__main__":
    main(["demo", *sys.argv[1:]])
