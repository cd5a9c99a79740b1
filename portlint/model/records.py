"""portlint's records: msgspec's `Struct`, `field` and `structs` (and `structs.replace`), which every
module takes from here.

msgspec reads `typing_extensions` where it is installed (jsonschema's `referencing` installs
it), so as to know its forms in a Struct's annotations; portlint's Structs use none. That
import, and the `inspect` it imports, cost ~15 ms of every cold check before its pool forks
(docs/performance.md). So msgspec is imported here as it is where `typing_extensions` is not
installed: it then takes `typing`'s forms. Where either was imported first (a test run, a
program that imports portlint), msgspec is as that import left it.
"""
from __future__ import annotations

import sys

if "msgspec" not in sys.modules and "typing_extensions" not in sys.modules:
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # its import fails: msgspec falls back to typing
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]

from msgspec import Struct, field, structs  # noqa: E402

replace = structs.replace

__all__ = ["Struct", "field", "replace", "structs"]
