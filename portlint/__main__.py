"""`python -m portlint`: the same entry point as the `portlint` command."""
from portlint.entry.command import run

run()
