"""Validation against schema.json (shipped beside this module), and the wording of what it finds.

A valid config is told apart by `schema_compiled.py`, schema.json compiled to
Python by fastjsonschema (cheap to import); only a config it refuses reaches
jsonschema (costly to import), which decides and whose error becomes
"expected X, got Y" at its key path, or an unknown or missing key.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from portlint.config.errors import Invalid, describe, quoted
from portlint.config.suggest import did_you_mean


@cache
def load_schema() -> dict[str, Any]:
    import json
    from importlib.resources import files

    schema: dict[str, Any] = json.loads((files("portlint.config") / "schema.json").read_text(encoding="utf-8"))
    return schema


def validate(data: dict[str, Any]) -> None:
    if compiled_accepts(data):
        return
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(load_schema()).iter_errors(data))
    if error is not None:
        raise Invalid(tuple(error.absolute_path), _schema_message(error))


def compiled_accepts(data: Any) -> bool:
    """What the compiled schema accepts, jsonschema accepts (tests/config/test_config_schema.py checks
    it); what it refuses goes to jsonschema, so a difference between the two costs time, never
    a verdict. (It takes a tuple for an array where jsonschema does not; config data, read
    from YAML or TOML, never holds one.)"""
    from portlint.config import schema_compiled

    try:
        schema_compiled.validate(data)
    except Exception:  # its JsonSchemaException, or anything odd data makes it raise: jsonschema decides
        return False
    return True


def _schema_message(error: Any) -> str:
    """A jsonschema ValidationError as "expected X, got Y" (or an unknown/missing key)."""
    keyword, schema, instance = error.validator, error.schema, error.instance
    if keyword == "additionalProperties":
        known = list(schema.get("properties", {}))
        unknown = next(key for key in instance if key not in known)
        return f'unknown key "{unknown}"' + did_you_mean(unknown, known, quoted=True)
    if keyword == "required":
        missing = next(key for key in error.validator_value if key not in instance)
        return f'missing required key "{missing}"'
    if keyword == "oneOf":
        keys = [key for branch in error.validator_value for key in branch.get("required", ())]
        present = [key for key in keys if key in instance]
        got = "both" if present else "neither"
        return f"expected exactly one of {' or '.join(map(quoted, keys))}, got {got}"
    expected = schema.get("x-expected") or _expectation(keyword, schema)
    return f"expected {expected}, got {describe(instance)}" if expected else error.message


def _expectation(keyword: str, schema: dict[str, Any]) -> str:
    if keyword == "type":
        types: list[str] = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        return " or ".join(_TYPE_WORDS.get(name, name) for name in types)
    if keyword in ("minimum", "maximum"):
        if "maximum" in schema:
            return f"an integer {schema.get('minimum', '')}..{schema['maximum']}"
        return f"an integer >= {schema['minimum']}"
    if keyword == "enum":
        return "one of " + ", ".join(quoted(value) for value in schema["enum"])
    if keyword == "minLength":
        return "a non-empty string"
    return ""  # pragma: no cover - every other keyword of the schema carries x-expected


_TYPE_WORDS = {
    "integer": "an integer",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
}
