"""``python -m trustprobe`` runs the CLI."""

from trustprobe.cli.main import main

main()
