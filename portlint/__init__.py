"""portlint: keep every hard-coded network port of a repository inside its lane."""
from __future__ import annotations

__version__ = "0.1.0"
