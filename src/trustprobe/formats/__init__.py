"""Reading and writing the project's file formats safely."""

from trustprobe.formats.atomic import atomic_write_bytes, atomic_write_text
from trustprobe.formats.jsonl import JsonLine, read_jsonl, validation_error_to_input_error

__all__ = [
    "JsonLine",
    "atomic_write_bytes",
    "atomic_write_text",
    "read_jsonl",
    "validation_error_to_input_error",
]
