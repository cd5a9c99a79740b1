"""`python -m portlint`: the same entry point as the `portlint` command."""
from portlint.start import run

run()
