"""`python -m portlint`: the same entry point as the `portlint` command."""
import sys

from portlint.start import main

sys.exit(main())
