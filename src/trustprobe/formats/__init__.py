"""Reading and writing the project's file formats safely."""

from trustprobe.formats.atomic import atomic_write_bytes, atomic_write_text
from trustprobe.formats.jsonl import (
    JsonLine,
    decode_jsonl_line,
    read_jsonl,
    validation_error_to_input_error,
)
from trustprobe.formats.yaml_file import read_yaml

__all__ = [
    "JsonLine",
    "atomic_write_bytes",
    "atomic_write_text",
    "decode_jsonl_line",
    "read_jsonl",
    "read_yaml",
    "validation_error_to_input_error",
]
