"""Go/Helm template actions (`{{ … }}`) blanked so that the YAML around them can be read.

A Helm chart's `templates/` are Go templates that render to YAML; as written
they are usually not YAML. The scanner below finds each action by its
delimiters (`{{`, `}}`, with the `{{-`/`-}}` trim markers and `{{/* … */}}`
comments) and keeps every character's place, so positions and byte offsets of
the literal ports around them stay those of the file:

- an action alone on its line(s) (`{{- if .Values.x }}`, `{{- include … | nindent 4 }}`)
  becomes blanks, as if the line were empty;
- an action inside a line (`name: {{ .Release.Name }}-svc`, `port: {{ .Values.port }}`)
  becomes `x`s: a plain string, never a port.

Both branches of an `if`/`else` are then read at once; when that makes the YAML
invalid (a key written in each branch), the file is skipped with a note.
"""
from __future__ import annotations

NOT_YAML = "a Go/Helm template ({{ … }}) that is YAML only once rendered"


def masked(text: str) -> str:
    """`text` with every template action blanked, each character kept in its place."""
    out = list(text)
    at = text.find("{{")
    while at != -1:
        end = text.find("}}", at + 2)
        if end == -1:
            break
        end += 2
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end == -1 else line_end
        alone = not text[line_start:at].strip() and not _text_follows(text, end, line_end)
        for index in range(at, end):
            if out[index] != "\n":
                out[index] = " " if alone else "x"
        at = text.find("{{", end)
    return "".join(out)


def _text_follows(text: str, start: int, line_end: int) -> bool:
    """Something other than more actions follows an action on its line."""
    rest = text[start:line_end]
    while True:
        rest = rest.strip()
        if not rest:
            return False
        if not rest.startswith("{{") or "}}" not in rest:
            return True
        rest = rest[rest.index("}}") + 2:]
