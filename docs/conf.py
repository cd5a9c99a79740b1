"""Sphinx configuration of portlint's site: `python scripts/docs.py build` (generates the reference
pages into _generated/, then builds with warnings as errors)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from portlint import __version__  # noqa: E402

project = "portlint"
author = "the portlint authors"
copyright = "the portlint authors"  # noqa: A001 - Sphinx's name
release = __version__
version = __version__.split("+")[0]

extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
suppress_warnings: list[str] = []

html_theme = "furo"
html_title = f"portlint {version}"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # a page without one makes the browser ask for /favicon.ico
html_extra_path: list[str] = []
html_copy_source = False
html_show_sourcelink = False
