"""Spec files and their decoding: a third-party MCP server described once, in a file.

- `spec`: `ServerSpec` (a parsed spec, paths resolved), `load_spec` / `parse_spec`, and the
  specs saved with ``gym-mcp envs add`` (`saved_specs`, `env_name`);
- `schema`: the file format as pydantic models (`SpecFile`), its JSON Schema and error words;
- `textfile`: strict decoding of the text files people write by hand (spec files, task files):
  UTF-8 only, JSON without duplicate keys, NaN or lone surrogates.

A spec is a description: this room reads and checks files and starts nothing. Turning a spec
into a server source is provisioning (`gym_mcp.live`: `ExternalSource.from_spec`, `as_source`).
"""

from __future__ import annotations

from gym_mcp.specs.schema import SpecFile, spec_json_schema, spec_schema_text
from gym_mcp.specs.spec import ServerSpec, env_name, is_spec_file, load_spec, parse_spec, saved_specs, specs_dir

__all__ = [
    "ServerSpec",
    "SpecFile",
    "env_name",
    "is_spec_file",
    "load_spec",
    "parse_spec",
    "saved_specs",
    "spec_json_schema",
    "spec_schema_text",
    "specs_dir",
]
