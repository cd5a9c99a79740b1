"""portlint's records: msgspec's `Struct`, `field` and `structs` (and `structs.replace`), which every
module takes from here."""
from __future__ import annotations

from msgspec import Struct, field, structs

replace = structs.replace

__all__ = ["Struct", "field", "replace", "structs"]
