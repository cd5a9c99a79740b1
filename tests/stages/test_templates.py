"""Helm/Go templates: read where they are plain YAML, skipped with a note otherwise, never PL001."""
from __future__ import annotations

from pathlib import Path

from portlint.config.load import load_config
from portlint.engine import Options, run
from portlint.model.naming import NameFilter
from portlint.model.source import Source
from portlint.stages.extract.template import NOT_YAML, masked
from portlint.stages.extract.yaml import extract


def test_actions_are_blanked_in_place() -> None:
    text = 'metadata:\n  name: {{ .Release.Name }}-svc\n  labels:\n    {{- include "x" . | nindent 4 }}\nport: 8080\n'
    out = masked(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert out.splitlines()[1] == "  name: xxxxxxxxxxxxxxxxxxx-svc"
    assert out.splitlines()[3].strip() == "" and out.splitlines()[4] == "port: 8080"
    assert masked("{{/* a\ncomment */}}\nport: 1\n").splitlines()[2] == "port: 1"


def test_a_template_is_read_where_it_is_plain_yaml_with_the_file_s_own_positions() -> None:
    data = b'{{- if .Values.on }}\nkind: DaemonSet\nname: {{ .Release.Name }}\nhostPort: 52365\n{{- end }}\n'
    extraction = extract(Source("t/templates/ds.yaml", data), NameFilter())
    assert not extraction.error and not extraction.note
    [site] = extraction.sites
    assert (site.name, site.value, site.line, site.column) == ("hostPort", 52365, 4, 11)
    assert data[site.start:site.end] == b"52365"


def test_a_template_that_is_yaml_only_once_rendered_is_skipped_with_a_note(tmp_path: Path) -> None:
    chart = tmp_path / "chart" / "templates"
    chart.mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 1.0.0\n")
    (chart / "svc.yaml").write_text(
        "ports:\n  {{- if .Values.a }}\n  port: 8080\n  {{- else }}\n  port: 9090\n  {{- end }}\n"
    )
    outcome = run(load_config(None, tmp_path), Options())
    assert outcome.problems == []
    assert f"chart/templates/svc.yaml: skipped: {NOT_YAML}" in outcome.notes


def test_broken_yaml_without_template_syntax_is_still_a_parse_error() -> None:
    extraction = extract(Source("a.yaml", b'port: "7000\n'), NameFilter())
    assert extraction.error.startswith("invalid YAML") and not extraction.note
