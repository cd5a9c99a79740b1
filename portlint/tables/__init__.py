"""Data about tools and libraries, each a YAML table (the source, with its comments), its JSON
schema, and the JSON generated from it that runs read (parsing YAML on every run would cost more
than reading JSON); the tests keep the two equal and validate against the schema."""
from __future__ import annotations

from pathlib import Path
from typing import Any

_HERE = Path(__file__).parent


def packaged(name: str) -> dict[str, Any]:
    """The table `name` as runs read it: `name.json`."""
    import json

    loaded: dict[str, Any] = json.loads((_HERE / f"{name}.json").read_bytes())
    return loaded


def source(name: str) -> dict[str, Any]:
    """The table `name` as written: `name.yaml` parsed, what `name.json` must hold."""
    from ruamel.yaml import YAML

    loaded: dict[str, Any] = YAML(typ="safe").load((_HERE / f"{name}.yaml").read_text(encoding="utf-8"))
    return loaded
