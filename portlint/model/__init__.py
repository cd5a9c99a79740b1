"""The records every stage hands to the next and every rule reads, one module per subject:
sites, bands and the layout (layout.py), what one file gives (extraction.py), problems and
their fixes (problems.py), frozen copies (frozen.py), what the config matched (usage.py),
a file's bytes with positions (source.py), the check codes (codes.py), and the record base
(records.py). Nothing here imports anything of portlint above it."""
