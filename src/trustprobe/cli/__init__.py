"""Command-line interface: thin commands that parse input, call the library and render output."""
