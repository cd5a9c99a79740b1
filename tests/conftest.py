"""Suite-wide settings.

The content cache stays off unless a test turns it on (tests/test_cache.py does,
and runs every fixture case cold and warm): a test comparing a repository's
files before and after a run then sees only the files portlint checks and fixes.
"""
from __future__ import annotations

import os

os.environ.setdefault("PORTLINT_NO_CACHE", "1")
