"""`python -m portlint`: the same entry point as the `portlint` command.

`python -m` puts the working directory first on `sys.path`, and the working directory is the
repository being checked: a `click.py` or `json.py` of its own would be imported in place of
the real module, and run. The `portlint` script has no such entry. It is dropped here, before
anything else of portlint or its dependencies is imported (`os` and `sys` are loaded with the
interpreter itself, never from a folder).
"""
import os
import sys

if sys.path and (sys.path[0] == "" or os.path.realpath(sys.path[0]) == os.path.realpath(os.getcwd())):
    del sys.path[0]

from portlint.entry.command import run  # noqa: E402 - only once the working directory is off sys.path

run()
