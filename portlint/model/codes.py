"""The codes of `portlint check`'s rules, known without importing a rule.

The config reads them to refuse a `per_file_ignores` code that names no rule (a typo
would ignore nothing). portlint/rules/__init__.py is the registry; tests/rules/test_registry.py
checks that this list is its codes, in its order, so a new rule is added to both.
"""
from __future__ import annotations

CHECK_CODES: tuple[str, ...] = (
    "PL001",
    "PL002",
    "PL003",
    "PL101",
    "PL102",
    "PL103",
    "PL201",
    "PL202",
    "PL203",
    "PL204",
    "PL301",
    "PL302",
    "PL401",
    "PL402",
    "PL501",
    "PL601",
    "PL602",
    "PL603",
    "PL604",
)
