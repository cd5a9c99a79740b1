"""Find, load and validate portlint's configuration (docs/configuration.md; the reference there is generated from schema.json).

One module per step: locate.py finds the config file and the repository root (reading
only a few names on the way up, so that the warm replay can ask without importing the
parsers); read.py parses YAML or TOML into plain data, with each entry's position
(positions.py); overrides.py lays `--config KEY = VALUE` settings over it; schema.py
validates it against schema.json and words what is wrong; build.py checks what a schema
cannot say (range order, band references) and builds the `Config`; load.py runs them in
that order. The first problem becomes a `ConfigError` naming the file, the key path and
what was expected. globs.py, scope.py and suggest.py are the config's vocabulary (path
patterns, the test scope, "did you mean"); procfs.py reads the kernel's port settings
(`ephemeral_floor: auto`, and `portlint host`).
"""
