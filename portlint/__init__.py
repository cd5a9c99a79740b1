"""portlint: keep every hard-coded network port of a repository inside its lane."""
from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, read from `portlint._version` when first asked for (written when portlint is
    built: setuptools-scm, pyproject.toml; `0.1.0+g<commit>` between releases). Not on import:
    the package is imported before the command can catch ^C (portlint.entry.command), and an
    import is where an early ^C lands."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from portlint._version import __version__ as version
    except ImportError:  # pragma: no cover - a source tree that was never built or installed
        version = "0.1.0+unknown"
    globals()["__version__"] = version
    return version


# Collections every 100,000 allocations, not every 700 (gc.set_threshold): a check allocates
# millions of short-lived objects (parse trees, YAML nodes) and few cycles; collecting every 700
# took ~20% of a run, and every 100,000 keeps memory bounded. Set as the command starts
# (start.run: importing portlint allocates ~100,000 objects) and for every check (engine.fewer_collections).
GC_THRESHOLDS = (100_000, 50, 1000)

# The exit status of a run ^C interrupted: the shell's for SIGINT (128 + 2). portlint.entry.command, portlint.cli.
EXIT_INTERRUPTED = 130
