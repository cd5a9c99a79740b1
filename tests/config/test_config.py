"""Config discovery, loading in every format, the ephemeral floor, and error messages."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from msgspec import structs

from portlint.config.build import DEFAULT_INCLUDE, STOCK_FLOOR, Config
from portlint.config.load import load_config
from portlint.config.locate import ConfigError, find_config
from portlint.model.layout import Band, FrozenSpec, Selector, Window

YAML_CONFIG = """\
ephemeral_floor: 9000
exclude: ["3rdparty/**"]
bands:
  ray-mgmt:
    range: 1301-1312
    ports: {NODE_MANAGER_PORT: 1301}
  engine:
    range: [7000, 8999]
    shares_with: [router]
    window: {stride: 100, count: 8}
    files: "pkg/**"
    sites:
      - DEFAULT_VLLM_PORT_RANGE_LOW
      - {name: start_port, files: "pkg/sglang/**", kind: python, role: base}
  dashboard:
    port: 8265
    within: engine
    privileged: false
    description: Ray dashboard
  router:
    range: 8600-8799
frozen:
  - copies: tests/reference/*.yaml
    source: ["examples/{name}", "examples/evals/{name}"]
per_file_ignores: {"docs/legacy/**": [PL501]}
"""

TOML_BODY = """\
ephemeral_floor = 9000
exclude = ["3rdparty/**"]
frozen = [{copies = "tests/reference/*.yaml", source = ["examples/{name}", "examples/evals/{name}"]}]

[{prefix}per_file_ignores]
"docs/legacy/**" = ["PL501"]

[{prefix}bands.ray-mgmt]
range = "1301-1312"
ports = {NODE_MANAGER_PORT = 1301}

[{prefix}bands.engine]
range = [7000, 8999]
shares_with = ["router"]
window = {stride = 100, count = 8}
files = "pkg/**"
sites = ["DEFAULT_VLLM_PORT_RANGE_LOW", {name = "start_port", files = "pkg/sglang/**", kind = "python", role = "base"}]

[{prefix}bands."dashboard"]
port = 8265
within = "engine"
privileged = false
description = "Ray dashboard"

[{prefix}bands]
router = {range = "8600-8799"}
"""

EXPECTED_BANDS = (
    Band("ray-mgmt", 1301, 1312, ports=(("NODE_MANAGER_PORT", 1301),)),
    Band(
        "engine",
        7000,
        8999,
        shares_with=("router",),
        window=Window(100, 8),
        files=("pkg/**",),
        sites=(
            Selector("DEFAULT_VLLM_PORT_RANGE_LOW"),
            Selector("start_port", ("pkg/sglang/**",), "python", "base"),
        ),
    ),
    Band("dashboard", 8265, 8265, description="Ray dashboard", within="engine"),
    Band("router", 8600, 8799),
)


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path, start: Path | None = None, **options: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, start or path.parent, **options)  # type: ignore[arg-type]
    return str(caught.value)


def positions(config: Config) -> list[tuple[str, int, int]]:
    return [(band.name, band.line, band.column) for band in config.bands]


def without_positions(config: Config) -> tuple[Band, ...]:
    return tuple(structs.replace(band, line=1, column=1) for band in config.bands)


# Discovery


@pytest.mark.parametrize(
    ("present", "found"),
    [
        ((".portlint.yaml", ".portlint.yml", "portlint.toml", "pyproject.toml"), ".portlint.yaml"),
        ((".portlint.yml", "portlint.toml", "pyproject.toml"), ".portlint.yml"),
        (("portlint.toml", "pyproject.toml"), "portlint.toml"),
        (("pyproject.toml",), "pyproject.toml"),
    ],
    ids=["yaml wins over everything", "yml wins over toml", "portlint.toml wins over pyproject", "pyproject last"],
)
def test_config_names_are_tried_in_order_within_one_directory(
    tmp_path: Path, present: tuple[str, ...], found: str
) -> None:
    for name in present:
        write(tmp_path / name, "[tool.portlint]\n" if name == "pyproject.toml" else "")
    assert find_config(tmp_path) == tmp_path / found


def test_the_nearest_directory_wins_over_a_better_name_further_up(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    write(tmp_path / "pkg" / "portlint.toml")
    assert find_config(tmp_path / "pkg" / "sub") == tmp_path / "pkg" / "portlint.toml"


def test_search_starts_from_a_files_directory(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yml")
    target = write(tmp_path / "pkg" / "run.sh", "echo\n")
    assert find_config(target) == tmp_path / ".portlint.yml"


def test_pyproject_without_a_portlint_table_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    write(tmp_path / "pkg" / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    assert find_config(tmp_path / "pkg") == tmp_path / ".portlint.yaml"


def test_a_broken_pyproject_is_claimed_only_when_it_mentions_portlint(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    write(tmp_path / "a" / "pyproject.toml", "[tool.ruff\n")
    write(tmp_path / "b" / "pyproject.toml", "[tool.portlint]\nbands = \n")
    assert find_config(tmp_path / "a") == tmp_path / ".portlint.yaml"
    assert find_config(tmp_path / "b") == tmp_path / "b" / "pyproject.toml"


def test_a_pyproject_that_is_not_utf8_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_bytes(b"[tool.portlint]\n# caf\xe9\n")
    assert find_config(tmp_path / "pkg") == tmp_path / ".portlint.yaml"


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert find_config(tmp_path / "repo" / "src") is None


def test_a_git_file_marks_a_repository_root_too(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    write(tmp_path / "worktree" / ".git", "gitdir: elsewhere\n")
    assert find_config(tmp_path / "worktree") is None


def test_the_repository_roots_own_config_is_found(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "portlint.toml")
    assert find_config(tmp_path / "deep" / "er") == tmp_path / "portlint.toml"


def test_an_explicit_config_wins(tmp_path: Path) -> None:
    write(tmp_path / ".portlint.yaml")
    explicit = write(tmp_path / "ci" / "strict.yaml")
    assert find_config(tmp_path, explicit) == explicit


def test_a_missing_explicit_config_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        find_config(tmp_path, Path("nope.yaml"))
    assert str(caught.value) == "nope.yaml: config file not found"


# Formats


def test_yaml_config_loads_into_bands_with_positions(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / ".portlint.yaml", YAML_CONFIG), tmp_path)
    assert config.path == tmp_path / ".portlint.yaml"
    assert config.root == tmp_path
    assert config.declared
    assert config.ephemeral_floor == 9000
    assert config.floor_note == ""
    assert config.include == DEFAULT_INCLUDE
    assert config.exclude == ("3rdparty/**",)
    assert without_positions(config) == EXPECTED_BANDS
    assert positions(config) == [("ray-mgmt", 4, 3), ("engine", 7, 3), ("dashboard", 15, 3), ("router", 20, 3)]
    assert config.frozen == (
        FrozenSpec("tests/reference/*.yaml", ("examples/{name}", "examples/evals/{name}"), "ports"),
    )
    assert config.per_file_ignores == (("docs/legacy/**", ("PL501",)),)


@pytest.mark.parametrize(
    ("name", "prefix"),
    [("portlint.toml", ""), ("pyproject.toml", "tool.portlint.")],
    ids=["portlint.toml", "pyproject tool.portlint table"],
)
def test_toml_formats_load_the_same_config_as_yaml(tmp_path: Path, name: str, prefix: str) -> None:
    from_yaml = load_config(write(tmp_path / "yaml" / ".portlint.yaml", YAML_CONFIG), tmp_path)
    text = TOML_BODY.replace("{prefix}", prefix)
    if prefix:
        text = "[project]\nname = 'x'\n\n[tool.portlint]\n" + text
    config = load_config(write(tmp_path / "toml" / name, text), tmp_path)
    assert without_positions(config) == without_positions(from_yaml)
    # Beyond the bands and where the entries are written (each format's own lines), the same config.
    assert structs.replace(config, path=None, root=tmp_path, bands=(), positions={}) == structs.replace(
        from_yaml, path=None, root=tmp_path, bands=(), positions={}
    )
    offset = 4 if prefix else 0
    column = len(f"[{prefix}bands.") + 1
    assert positions(config) == [
        ("ray-mgmt", 8 + offset, column),
        ("engine", 12 + offset, column),
        ("dashboard", 19 + offset, column + 1),  # inside its quotes
        ("router", 26 + offset, 1),  # a key under [bands]
    ]


def test_an_empty_config_file_is_declared_with_no_bands(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / ".portlint.yaml", "# nothing yet\n"), tmp_path)
    assert config.declared
    assert config.bands == ()
    assert config.ephemeral_floor == STOCK_FLOOR
    assert config.include == DEFAULT_INCLUDE


def test_a_band_declared_by_a_dotted_toml_key_is_placed_at_its_part(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "portlint.toml", "bands.gym.port = 5000\n"), tmp_path)
    assert positions(config) == [("gym", 1, 7)]


def test_a_bracketed_line_inside_a_toml_string_is_not_a_header(tmp_path: Path) -> None:
    text = '[bands.gym]\nport = 5000\ndescription = """\n[see: the docs]\n"""\n'
    config = load_config(write(tmp_path / "portlint.toml", text), tmp_path)
    assert positions(config) == [("gym", 1, 8)]


def test_include_replaces_the_default(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / ".portlint.yaml", "include: ['**/*.sub']\n"), tmp_path)
    assert config.include == ("**/*.sub",)


# Zero-config and the floor


def test_zero_config_uses_the_stock_floor_and_default_include(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    config = load_config(None, tmp_path / "src")
    assert config == Config(
        path=None,
        root=tmp_path,
        ephemeral_floor=32768,
        floor_note="",
        include=DEFAULT_INCLUDE,
        exclude=(),
        bands=(),
        frozen=(),
        per_file_ignores=(),
        declared=False,
    )


def test_zero_config_outside_a_repository_is_rooted_at_the_start(tmp_path: Path) -> None:
    target = write(tmp_path / "scripts" / "run.sh", "echo\n")
    assert load_config(None, target).root == tmp_path / "scripts"


def test_floor_override_wins_over_the_config(tmp_path: Path) -> None:
    path = write(tmp_path / ".portlint.yaml", "ephemeral_floor: 20000\n")
    assert load_config(path, tmp_path, floor_override="9000").ephemeral_floor == 9000
    assert load_config(None, tmp_path, floor_override="9000").ephemeral_floor == 9000


def fake_proc(tmp_path: Path, content: str) -> Path:
    write(tmp_path / "proc" / "sys" / "net" / "ipv4" / "ip_local_port_range", content)
    return tmp_path / "proc"


def test_auto_floor_reads_the_hosts_port_range(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, "9000\t65000\n")
    config = load_config(None, tmp_path, floor_override="auto", proc_root=proc)
    assert (config.ephemeral_floor, config.floor_note) == (9000, "")


def test_auto_floor_in_the_config_file_reads_the_hosts_port_range(tmp_path: Path) -> None:
    path = write(tmp_path / "portlint.toml", 'ephemeral_floor = "auto"\n')
    proc = fake_proc(tmp_path, "10000 60999\n")
    assert load_config(path, tmp_path, proc_root=proc).ephemeral_floor == 10000


def test_auto_floor_falls_back_to_the_stock_floor_when_unreadable(tmp_path: Path) -> None:
    config = load_config(None, tmp_path, floor_override="auto", proc_root=tmp_path / "noproc")
    source = tmp_path / "noproc" / "sys" / "net" / "ipv4" / "ip_local_port_range"
    assert config.ephemeral_floor == 32768
    assert config.floor_note == f"ephemeral_floor auto: {source} unreadable; using 32768"


def test_auto_floor_falls_back_when_the_range_is_garbage(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, "lots\n")
    config = load_config(None, tmp_path, floor_override="auto", proc_root=proc)
    assert config.ephemeral_floor == 32768
    assert config.floor_note.endswith("holds no port range ('lots'); using 32768")


@pytest.mark.parametrize("value", ["lots", "0", "70000", ""], ids=["a word", "zero", "above 65535", "nothing"])
def test_a_bad_floor_override_names_the_option(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, tmp_path, floor_override=value)
    assert str(caught.value) == f'--ephemeral-floor: expected an integer 1..65535 or "auto", got "{value}"'
    assert (caught.value.path, caught.value.key_path) == ("--ephemeral-floor", "")


# Errors: one per kind, with the exact message


BAND = "bands:\n  gym:\n"

ERRORS = [
    ("floor is a word", "ephemeral_floor: lots\n",
     'ephemeral_floor: expected an integer or "auto", got "lots"'),
    ("floor is zero", "ephemeral_floor: 0\n",
     "ephemeral_floor: expected an integer 1..65535, got 0"),
    ("unknown top-level key with a suggestion", "bandz: {}\n",
     'unknown key "bandz"; did you mean "bands"?'),
    ("unknown band key with a suggestion", BAND + "    rnage: 5000-5999\n    port: 5000\n",
     'bands.gym: unknown key "rnage"; did you mean "range"?'),
    ("unknown key without a close match", BAND + "    port: 5000\n    colour: red\n",
     'bands.gym: unknown key "colour"'),
    ("range written backwards", BAND + "    range: 5999-5000\n",
     'bands.gym.range: expected LOW-HIGH with LOW <= HIGH, got "5999-5000"'),
    ("range list written backwards", BAND + "    range: [5999, 5000]\n",
     "bands.gym.range: expected [LOW, HIGH] with LOW <= HIGH, got [5999, 5000]"),
    ("range beyond 65535", BAND + "    range: 60000-70000\n",
     'bands.gym.range: expected LOW-HIGH with ports in 1..65535, got "60000-70000"'),
    ("range is not LOW-HIGH", BAND + "    range: lots\n",
     'bands.gym.range: expected "LOW-HIGH" or [LOW, HIGH], got "lots"'),
    ("range is a bare number", BAND + "    range: 5000\n",
     'bands.gym.range: expected "LOW-HIGH" or [LOW, HIGH], got 5000'),
    ("range list of three", BAND + "    range: [1, 2, 3]\n",
     "bands.gym.range: expected [LOW, HIGH], got a list"),
    ("both range and port", BAND + "    range: 5000-5999\n    port: 5000\n",
     'bands.gym: expected exactly one of "range" or "port", got both'),
    ("neither range nor port", BAND + "    description: gym servers\n",
     'bands.gym: expected exactly one of "range" or "port", got neither'),
    ("port out of range", BAND + "    port: 0\n",
     "bands.gym.port: expected an integer 1..65535, got 0"),
    ("band that is not a mapping", BAND + "    - 5000\n",
     "bands.gym: expected a mapping, got a list"),
    ("bad band name", "bands:\n  my gym: {port: 5000}\n",
     'bands: expected a band name of letters, digits, "_", "." and "-", got "my gym"'),
    ("selector role not known",
     "bands:\n  engine:\n    range: 7000-8999\n    sites: [A_PORT, {name: start_port, role: start}]\n",
     'bands.engine.sites[1].role: expected one of "port", "low", "high", "base", got "start"'),
    ("selector without a name", BAND + "    port: 5000\n    sites: [{files: 'gym/**'}]\n",
     'bands.gym.sites[0]: missing required key "name"'),
    ("selector that is a number", BAND + "    port: 5000\n    sites: [5000]\n",
     'bands.gym.sites[0]: expected a name or a mapping with "name", got 5000'),
    ("window count zero", BAND + "    range: 5000-5999\n    window: {stride: 10, count: 0}\n",
     "bands.gym.window.count: expected an integer >= 1, got 0"),
    ("privileged given as a word", BAND + "    port: 5000\n    privileged: 'yes'\n",
     'bands.gym.privileged: expected true or false, got "yes"'),
    ("within names no band", BAND + "    port: 5000\n    within: gim\n  gyms: {range: 5000-5999}\n",
     'bands.gym.within: unknown band "gim"; did you mean "gym"?'),
    ("within names itself", BAND + "    port: 5000\n    within: gym\n",
     'bands.gym.within: expected another band, got "gym" itself'),
    ("carve-out outside its parent", BAND + "    range: 5000-5999\n  web:\n    range: 5900-6100\n    within: gym\n",
     'bands.web.within: expected a range inside "gym" (5000-5999), got 5900-6100'),
    ("shares_with names no band", BAND + "    port: 5000\n    shares_with: [gym, engine]\n",
     'bands.gym.shares_with[1]: unknown band "engine"'),
    ("named port outside its band", BAND + "    range: 5000-5999\n    ports: {GYM_PORT: 6000}\n",
     "bands.gym.ports.GYM_PORT: expected a port inside 5000-5999, got 6000"),
    ("frozen entry without a source", "frozen:\n  - {copies: 'tests/*.yaml'}\n",
     'frozen[0]: missing required key "source"'),
    ("frozen compare not known", "frozen:\n  - {copies: a, source: b, compare: keys}\n",
     'frozen[0].compare: expected one of "ports", "all", got "keys"'),
    ("ignored code not a rule code", "per_file_ignores:\n  'docs/**': [E501]\n",
     'per_file_ignores."docs/**"[0]: expected a rule code such as "PL501" (or a prefix such as "PL5"), got "E501"'),
    ("include that is a string", "include: '**/*.py'\n",
     'include: expected a list, got "**/*.py"'),
    ("description that is a date", BAND + "    port: 5000\n    description: 2024-01-31\n",
     "bands.gym.description: expected a string, got 2024-01-31"),
    ("description left empty", BAND + "    port: 5000\n    description:\n",
     "bands.gym.description: expected a string, got null"),
    ("port given as true", BAND + "    port: true\n",
     "bands.gym.port: expected an integer, got true"),
    ("include that is a mapping", "include: {a: 1}\n",
     "include: expected a list, got a mapping"),
    ("anchored boolean as a port", BAND + "    privileged: &yes true\n    port: *yes\n",
     "bands.gym.port: expected an integer, got true"),
    ("empty include glob", "include: ['']\n",
     'include[0]: expected a non-empty string, got ""'),
    ("empty selector name", BAND + "    port: 5000\n    sites: ['']\n",
     'bands.gym.sites[0]: expected a name or a mapping with "name", got ""'),
    ("top level is a list", "- bands\n",
     "expected a mapping at the top level, got a list"),
    ("invalid YAML", "bands:\n  gym:\n   port: 1\n  range: : :\n",
     "expected valid YAML: mapping values are not allowed here (line 4)"),
    ("a character YAML forbids", "bands: {}\n# bell \x07\n",
     "expected valid YAML: unacceptable character #x0007: special characters are not allowed (line 2)"),
    ("duplicate YAML key", "bands: {}\nbands: {}\n",
     'expected valid YAML: found duplicate key "bands" with value "{}" (original value: "{}") (line 2)'),
]


@pytest.mark.parametrize(("text", "message"), [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS])
def test_a_bad_yaml_config_names_the_file_key_and_expectation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / ".portlint.yaml", text)
    assert error_of(path) == f".portlint.yaml: {message}"


def test_error_fields_are_kept_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / ".portlint.yaml", BAND + "    range: 5999-5000\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, tmp_path)
    error = caught.value
    assert (error.path, error.key_path) == (".portlint.yaml", "bands.gym.range")
    assert error.message == 'expected LOW-HIGH with LOW <= HIGH, got "5999-5000"'


def test_a_band_name_with_a_dot_is_quoted_in_the_key_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / ".portlint.yaml", "bands:\n  ray.gcs: {range: 9-1}\n")
    assert error_of(path) == '.portlint.yaml: bands."ray.gcs".range: expected LOW-HIGH with LOW <= HIGH, got "9-1"'


def test_invalid_toml_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "portlint.toml", "[bands.gym]\nport = \n")
    assert error_of(path) == "portlint.toml: expected valid TOML: Invalid value (line 2)"


def test_pyproject_errors_carry_the_tool_portlint_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "pyproject.toml", '[tool.portlint.bands.gym]\nrange = "5999-5000"\n')
    assert error_of(path) == (
        'pyproject.toml: tool.portlint.bands.gym.range: expected LOW-HIGH with LOW <= HIGH, got "5999-5000"'
    )


def test_pyproject_portlint_that_is_not_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "pyproject.toml", "[tool]\nportlint = 3\n")
    assert error_of(path) == "pyproject.toml: tool.portlint: expected a mapping for [tool.portlint], got 3"


def test_an_explicit_pyproject_without_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert error_of(path) == "pyproject.toml: expected a [tool.portlint] table"


def test_a_config_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ".portlint.yaml"
    path.write_bytes(b"bands: {}\n# caf\xe9\n")
    assert error_of(path) == ".portlint.yaml: expected UTF-8 text: invalid continuation byte at byte 15"


def test_an_unreadable_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".portlint.yaml").mkdir()
    assert error_of(tmp_path / ".portlint.yaml") == ".portlint.yaml: cannot read the file: Is a directory"


def test_error_paths_are_relative_to_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "repo" / "sub" / ".portlint.yaml", "bandz: {}\n")
    monkeypatch.chdir(tmp_path / "repo")
    assert error_of(path).startswith("sub/.portlint.yaml: ")
    monkeypatch.chdir(tmp_path / "repo" / "sub")
    elsewhere = write(tmp_path / "other" / "portlint.toml", "bandz = {}\n")
    assert error_of(elsewhere).startswith(f"{os.fspath(elsewhere)}: ")


@pytest.mark.parametrize(("entry", "message"), [
    ("{copies: 'tests/*.yaml', source: '../elsewhere/{name}'}", "frozen[0].source: resolves outside the repository root: '../elsewhere/{name}'"),
    ("{copies: 'tests/*.yaml', source: ['examples/{name}', '/etc/{name}']}", "frozen[0].source: resolves outside the repository root: '/etc/{name}'"),
    ("{copies: '../*.yaml', source: 'examples/{name}'}", "frozen[0].copies: resolves outside the repository root: '../*.yaml'"),
    ("{copies: 'tests/*.yaml', source: 'examples/{nam}'}", "frozen[0].source: expected a path template using {name} or {stem}, got 'examples/{nam}'"),
])
def test_frozen_templates_may_not_leave_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".portlint.yaml").write_text(f"frozen:\n  - {entry}\n")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / ".portlint.yaml", tmp_path)
    assert str(error.value) == f".portlint.yaml: {message}"
