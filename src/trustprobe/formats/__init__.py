"""Reading and writing the project's file formats safely."""

from trustprobe.formats.atomic import (
    atomic_write_bytes,
    atomic_write_text,
    output_mode,
    temporary_beside,
    writable_target,
)
from trustprobe.formats.canonical import SMALL_DECIMALS, canonical_json, sha256_hex
from trustprobe.formats.jsonl import (
    UTF8_BOM,
    JsonlFile,
    JsonLine,
    decode_jsonl_line,
    read_jsonl,
    without_bom,
)
from trustprobe.formats.parquet import ParquetFile, row_group_block_starts
from trustprobe.formats.paths import (
    GLOB_CHARS,
    STDIN_NAME,
    STDIO,
    expand_paths,
    is_stream,
    spooled,
)
from trustprobe.formats.record_file import Record, RecordFile
from trustprobe.formats.records import PARQUET_SUFFIX, open_records
from trustprobe.formats.text import (
    STORED_CONTEXT,
    Identifier,
    StorableText,
    check_identifier,
    check_storable,
    entering,
    repair_strings,
    replace_lone_surrogates,
    show_invisible,
)
from trustprobe.formats.times import utc_text
from trustprobe.formats.validation import validation_error_to_input_error
from trustprobe.formats.yaml_file import node_children, read_yaml

__all__ = [
    "GLOB_CHARS",
    "Identifier",
    "JsonLine",
    "JsonlFile",
    "PARQUET_SUFFIX",
    "ParquetFile",
    "Record",
    "RecordFile",
    "SMALL_DECIMALS",
    "STDIN_NAME",
    "STDIO",
    "STORED_CONTEXT",
    "StorableText",
    "UTF8_BOM",
    "atomic_write_bytes",
    "atomic_write_text",
    "canonical_json",
    "check_identifier",
    "check_storable",
    "decode_jsonl_line",
    "entering",
    "expand_paths",
    "is_stream",
    "node_children",
    "open_records",
    "output_mode",
    "read_jsonl",
    "read_yaml",
    "repair_strings",
    "replace_lone_surrogates",
    "row_group_block_starts",
    "sha256_hex",
    "show_invisible",
    "spooled",
    "temporary_beside",
    "utc_text",
    "validation_error_to_input_error",
    "without_bom",
    "writable_target",
]
