"""The documentation site: `python scripts/docs.py build` makes it, `python scripts/docs.py check` opens every page.

    python scripts/docs.py build [--out DIR]    # generate the reference pages, then Sphinx, warnings as errors
    python scripts/docs.py check [--out DIR]    # every page in headless Chromium: no console error, no failed load
    python scripts/docs.py generate DIR         # only the generated pages, into DIR

The site is Sphinx with MyST (pages in Markdown, `pip install -e ".[docs]"`), built from
the repository's own files: the hand-written pages in docs/, the README's neighbours
(ARCHITECTURE.md, CONTRIBUTING.md, CHANGELOG.md) included as they are, and pages
generated here into docs/_generated/ (never committed):

* `configuration-reference.md`, from the config's JSON schema (portlint/config/schema.json:
  each key's description, type, default and example);
* `rules/index.md` and one page per rule, from each rule module's docstring (what
  `portlint rule CODE` prints): its summary, then the sections its headings open
  (What it does, Why, Example, Use instead, Options, Fix).

`check` serves the built site on 127.0.0.1 and drives Chromium over the DevTools
protocol on a pipe (`--remote-debugging-pipe`: no port, no extra library): each page is
loaded until the network is idle, and any uncaught exception, `console.error`, or log entry of level error (a
resource that failed to load) fails the check, naming the page.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GENERATED = DOCS / "_generated"
BUILT = DOCS / "_build" / "html"
HEADINGS = ("What it does:", "Why:", "Example", "Use instead:", "Options:", "Fix:")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
)


# -- generated pages --------------------------------------------------------------------------


def generate(out: Path) -> list[Path]:
    """Write the generated pages into `out`; the paths written."""
    sys.path.insert(0, str(ROOT))
    from portlint import rules
    from portlint.config.schema import load_schema

    if out.exists():
        shutil.rmtree(out)
    (out / "rules").mkdir(parents=True)
    written = [_write(out / "configuration-reference.md", configuration_reference(load_schema()))]
    written.append(_write(out / "rules" / "index.md", rules_index(rules.ALL, rules.HOST)))
    for rule in (*rules.ALL, *rules.HOST):
        written.append(_write(out / "rules" / f"{rule.CODE}.md", rule_page(rule)))
    return written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def configuration_reference(schema: dict[str, Any]) -> str:
    """Every key of the config, from the schema: what it is, its type, default and an example."""
    lines = [
        "# Configuration reference", "",
        "Generated from the config's JSON schema (`portlint/config/schema.json`), which validates",
        "`.portlint.yaml`, `portlint.toml` and `[tool.portlint]` in `pyproject.toml` alike.", "",
    ]
    definitions = schema.get("$defs", {})
    for key, spec in schema["properties"].items():
        if "x-alias-of" in spec:
            continue
        aliases = [name for name, other in schema["properties"].items() if other.get("x-alias-of") == key]
        lines += [f"## `{key}`", ""]
        if aliases:
            lines += [f"Also spelt {', '.join(f'`{a}`' for a in aliases)} (ruff's spelling); one of the two per file.", ""]
        lines += [spec.get("description", ""), ""]
        lines += [f"**Type:** {_type_of(spec, definitions)}", ""]
        if "x-default" in spec:
            lines += [f"**Default:** `{json.dumps(spec['x-default'])}`", ""]
        elif key == "select":
            lines += ["**Default:** every rule", ""]
        if "x-example" in spec:
            lines += ["**Example:**", "", "```yaml", *_yaml({key: spec["x-example"]}), "```", ""]
        if key == "bands":
            lines += _band_keys(definitions)
    return "\n".join(lines).rstrip("\n") + "\n"


def _band_keys(definitions: dict[str, Any]) -> list[str]:
    lines = ["### A band's keys", "", "| key | type | what |", "|---|---|---|"]
    for name, spec in definitions["band"]["properties"].items():
        lines.append(f"| `{name}` | {_type_of(spec, definitions)} | {spec.get('description', '')} |")
    lines += ["", "### A frozen entry's keys", "", "| key | type | what |", "|---|---|---|"]
    for name, spec in definitions["frozen"]["properties"].items():
        lines.append(f"| `{name}` | {_type_of(spec, definitions)} | {spec.get('description', '')} |")
    return [*lines, ""]


def _type_of(spec: dict[str, Any], definitions: dict[str, Any]) -> str:
    """A schema's type in words: its `x-expected`, else its JSON type."""
    if "$ref" in spec:
        target = definitions[spec["$ref"].rsplit("/", 1)[-1]]
        return spec.get("x-expected") or _type_of(target, definitions)
    if "x-expected" in spec:
        return str(spec["x-expected"])
    if "enum" in spec:
        return " or ".join(f'`"{value}"`' for value in spec["enum"])
    kind = spec.get("type")
    if kind == "array":
        items = spec.get("items", {})
        inner = _type_of(items, definitions) if items else "values"
        return f"a list of {inner.removeprefix('a ').removeprefix('an ')}s" if inner.startswith(("a ", "an ")) else f"a list ({inner})"
    words = {"integer": "an integer", "string": "a string", "object": "a mapping", "boolean": "true or false"}
    if kind == "integer" and "maximum" in spec:
        return f"an integer {spec.get('minimum', '')}..{spec['maximum']}"
    if isinstance(kind, list):
        return " or ".join(words.get(k, k) for k in kind)
    return words.get(str(kind), str(kind))


def _yaml(value: Any, indent: int = 0) -> list[str]:
    """A small YAML rendering of the schema's examples (mappings, lists, scalars)."""
    pad = "  " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            shown = json.dumps(key) if not re.fullmatch(r"[A-Za-z0-9_.-]+", key) else key
            if isinstance(item, dict) or (isinstance(item, list) and any(isinstance(i, dict) for i in item)):
                lines += [f"{pad}{shown}:", *_yaml(item, indent + 1)]
            else:
                lines.append(f"{pad}{shown}: {_scalar(item)}")
        return lines
    if isinstance(value, list):
        lines = []
        for item in value:
            inner = _yaml(item, indent + 1)
            lines.append(f"{pad}- {inner[0].strip()}")
            lines += inner[1:]
        return lines
    return [f"{pad}{_scalar(value)}"]


def _scalar(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_./-]+", value) and not value[0].isdigit():
        return value
    return json.dumps(value)


def rules_index(check: tuple[Any, ...], host: tuple[Any, ...]) -> str:
    lines = [
        "# Rules", "",
        "`portlint rule CODE` prints a rule's page in the terminal. Each page says what the rule",
        "does, why it matters, a failing example and the code that passes, the options it",
        "reads, and whether `--fix` repairs it.", "",
        "```{toctree}", ":hidden:", "", *(rule.CODE for rule in (*check, *host)), "```", "",
        "## `portlint check`", "", "| code | name | what | fix |", "|---|---|---|---|",
    ]
    for rule in check:
        lines.append(f"| [{rule.CODE}]({rule.CODE}.md) | {rule.NAME} | {_summary(rule)} | {_fix_word(rule)} |")
    lines += ["", "## `portlint host`", "", "| code | name | what |", "|---|---|---|"]
    for rule in host:
        lines.append(f"| [{rule.CODE}]({rule.CODE}.md) | {rule.NAME} | {_summary(rule)} |")
    return "\n".join(lines) + "\n"


def _summary(rule: Any) -> str:
    return (rule.__doc__ or "").strip().splitlines()[0]


def _fix_word(rule: Any) -> str:
    fix = sections(rule.__doc__ or "").get("Fix:", "").lower()
    if fix.startswith("safe"):
        return "safe"
    if fix.startswith("unsafe"):
        return "unsafe"
    return "via layout" if fix.startswith("via the layout") else "—"


def sections(doc: str) -> dict[str, str]:
    """A rule docstring's sections by heading ("" for the summary); a heading opens a line."""
    found: dict[str, list[str]] = {"": []}
    current = ""
    for line in doc.strip().splitlines()[1:]:
        heading = next((h for h in HEADINGS if line.startswith(h)), None)
        if heading is not None:
            current = heading
            found[current] = [line[len(heading):].lstrip()]  # the text on the heading's line
        else:
            found[current].append(line)
    return {key: "\n".join(value).strip("\n").rstrip() for key, value in found.items()}


def rule_page(rule: Any) -> str:
    doc = (rule.__doc__ or "").strip()
    parts = sections(doc)
    family = "portlint host" if rule.CODE.startswith("H") else "portlint check"
    lines = [f"# {rule.CODE} {rule.NAME}", "", f"*{_summary(rule)}*", "",
             f"A rule of `{family}`. In the terminal: `portlint rule {rule.CODE}`.", ""]
    titles = {"What it does:": "What it does", "Why:": "Why", "Example": "Example",
              "Use instead:": "Use instead", "Options:": "Options", "Fix:": "Fix"}
    for heading, title in titles.items():
        text = parts.get(heading, "")
        if heading == "Example" and text.startswith("("):
            condition, _, text = text[1:].partition("):")
            title = f"Example ({condition})"
            text = text.lstrip(" ").strip("\n")
        lines += [f"## {title}", "", *_markdown(text[:1].upper() + text[1:]), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _markdown(text: str) -> list[str]:
    """A docstring section as Markdown: its indented lines become a code block."""
    lines: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            language = "python" if any(re.search(r"\b(def|for|with|import|os\.environ|socket)\b", b) for b in block) else "text"
            lines.extend(["", f"```{language}", *block, "```", ""])
            block.clear()

    for line in text.splitlines():
        if line.startswith("    "):
            block.append(line[4:])
        else:
            flush()
            lines.append(line)
    flush()
    return lines


# -- the build ----------------------------------------------------------------------------------


def build(out: Path) -> int:
    generate(GENERATED)
    started = time.monotonic()
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html", str(DOCS), str(out)]
    code = subprocess.run(command).returncode
    if code == 0:
        print(f"Built the site in {out} ({time.monotonic() - started:.1f} s).")
    return code


# -- the browser check -------------------------------------------------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("docs.py: error: no Chromium found (Debian: apt-get install -y chromium)")


class Browser:
    """Chromium, driven over the DevTools protocol on a pipe (fd 3 in, fd 4 out, NUL-ended JSON)."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="portlint-docs-chromium-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        os.set_inheritable(to_browser, True)
        os.set_inheritable(from_browser, True)

        def fds() -> None:  # the child's fd 3 and 4, as --remote-debugging-pipe expects
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable", session=self.session)
        self.call("Page.setLifecycleEventsEnabled", {"enabled": True}, session=self.session)

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 30) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def _receive(self, deadline: float) -> dict[str, Any]:
        import select

        waiting = select.poll()  # not select(): a process with many files open has descriptors past 1023
        waiting.register(self._read, select.POLLIN)
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not waiting.poll(left * 1000):
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def visit(self, url: str, settle: float = 0.3) -> list[str]:
        """Load `url` until the network is idle (nothing loading for 0.5 s, as Chromium decides),
        then `settle` seconds more; the errors its console and log report (none: an empty list)."""
        self.events.clear()
        loader = self.call("Page.navigate", {"url": url}, session=self.session).get("loaderId")
        deadline = time.monotonic() + 60

        def idle(event: dict[str, Any]) -> bool:
            params = event.get("params", {})
            return (event.get("method") == "Page.lifecycleEvent" and params.get("name") == "networkIdle"
                    and params.get("loaderId") == loader)

        while not any(idle(e) for e in self.events):
            self.events.append(self._receive(deadline))
        quiet = time.monotonic() + settle  # a script that reports late
        while True:
            try:
                self.events.append(self._receive(quiet))
            except TimeoutError:
                break
        return [error for event in self.events if (error := _error(event))]

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self.profile, ignore_errors=True)


def _error(event: dict[str, Any]) -> str:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        return f"exception: {details.get('exception', {}).get('description') or details.get('text')}"
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return "console.error: " + " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
    if method == "Log.entryAdded" and params["entry"].get("level") == "error":
        entry = params["entry"]
        return f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip()
    return ""


def pages(site: Path) -> list[str]:
    return sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html") if "_static" not in path.parts)


def check(site: Path) -> int:
    if not (site / "index.html").is_file():
        print(f"docs.py: error: no site at {site}: run `python scripts/docs.py build` first", file=sys.stderr)
        return 2
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    browser = Browser()
    failed = 0
    try:
        for page in pages(site):
            errors = browser.visit(base + page)
            for error in errors:
                print(f"{page}: {error}")
            failed += bool(errors)
    finally:
        browser.close()
        server.shutdown()
    total = len(pages(site))
    print(f"Opened {total} page{'s' if total != 1 else ''} in Chromium: {total - failed} without errors, {failed} with.")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="docs.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "check"):
        command = commands.add_parser(name)
        command.add_argument("--out", type=Path, default=BUILT)
    commands.add_parser("generate").add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "generate":
        for path in generate(args.out):
            print(path)
        return 0
    return build(args.out) if args.command == "build" else check(args.out)


if __name__ == "__main__":
    sys.exit(main())
