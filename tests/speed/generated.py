"""A generated repository for the fast paths' equivalence tests (test_plain.py): the fixture
repositories' files, recombined by a seeded generator into files of the shapes the fast paths cut
short, with the cold code between them that they skip.

* Python modules: several fixture modules one after another, some inside a class or under an
  `if`, between cold functions, decorated ones, f-strings and `match` statements;
* YAML streams: fixture documents between generated cold ones (a CRD schema that says `port`
  everywhere and runs nothing, a config map with `#` inside its scalars, a job whose script
  names no tool of the table beside documents whose scripts do), joined by `---` and
  `...` markers, some with a scalar that keeps its trailing blank lines (`|+`);
* shell scripts and Markdown pages: fixture files joined, between filler;
* files with nothing to check beside them, as most of a repository's are.

The fixture files are the shapes portlint's rules are written for; what is generated around them
is only what a fast path must see past. Nothing is read from outside the project.
"""
from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_KINDS = {".py": "python", ".yaml": "yaml", ".yml": "yaml", ".sh": "shell", ".sub": "shell", ".sbatch": "shell",
          ".md": "markdown"}

COLD_PYTHON = '''

def reduce_{n}(batch, scale={v}.0):
    """Normalise, mask and reduce: nothing here writes a port."""
    values = [value / scale for value in batch]
    text = f"{{len(values)}} values, {{values[:2]!r}} first"  # an f-string with fields
    return sum(values) / max(len(values), 1), text


@staticmethod
def _helper_{n}(*args, **kwargs):
    match args:
        case [first, *_]:
            return first
        case _:
            return kwargs.get("default", {v})
'''
COLD_CRD = '''apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things{n}.example.com
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          containerPort:
            description: Number of the port to expose on the pod's IP address, 0 < x < 65536.
            format: int32
            type: integer
          ports:
            items:
              properties:
                hostPort:
                  type: integer
                targetPort:
                  anyOf:
                  - type: integer
                  - type: string
          command:
            items:
              type: string
            type: array
'''
COLD_CONFIG = '''apiVersion: v1
kind: ConfigMap
metadata:
  name: notes-{n}
data:
  note: "step {n} # not a comment, 8080 is a number in a string"
  script: |+
    echo step {n}
    # a shell comment inside a scalar, step {n}

---
apiVersion: batch/v1
kind: Job
metadata:
  name: warmup-{n}
spec:
  template:
    spec:
      containers:
      - name: warmup
        command: ["bash", "-c"]
        args:
        - |
          for step in $(seq 1 {n}); do
            python warmup.py --step "$step" --port 8080
          done
'''
FILLER_SHELL = '#!/bin/bash\nset -euo pipefail\nfor step in $(seq 1 {n}); do\n  echo "step $step of {n}"\ndone\n'
FILLER_MARKDOWN = '\n## Section {n}\n\nRun `python train.py --steps {n}` and compare the loss with the reference.\n'
# A page whose words pass the prefilter (a port token) but where no line writes a port and a number.
COLD_MARKDOWN = '# Serving {n}\n\nThe server picks its port when it starts.\n' + FILLER_MARKDOWN


def fixture_files() -> dict[str, list[str]]:
    """The text of every fixture repository's file of each kind."""
    found: dict[str, list[str]] = {kind: [] for kind in set(_KINDS.values())}
    for path in sorted(FIXTURES.glob("*/*/repo/**/*")):
        kind = _KINDS.get(path.suffix)
        if kind is None or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if kind == "python" and not _parses(text):
            continue  # a parse error in code a fast path skips goes unreported there (speed/switch.py)
        found[kind].append(text)
    return found


def _parses(module: str) -> bool:
    try:
        ast.parse(module)
    except (SyntaxError, ValueError):
        return False
    return True


# A layout whose selectors name keys the fixtures write (dotted ones too: only their last key is
# written in a file), so that the byte tests look for the selectors' names besides the port token.
LAYOUT = """ephemeral_floor: 9000
bands:
  rendezvous:
    range: 29500-29599
    sites: [MASTER_PORT, master_port, DEFAULT_MASTER_PORT, cluster.master_port_range_low]
  serving:
    range: 8000-8099
    sites: [port, server_port, http_port, containerPort, generation.port_range_low]
  ray-gcs:
    range: 6379-6380
    ports: {GCS_PORT: 6379, RAY_CLIENT_SERVER_PORT: 6380}
  workers:
    range: 10000-10999
    sites: [min_worker_port, max_worker_port, MIN_WORKER_PORT, MAX_WORKER_PORT, env.gym.base]
"""


def build(root: Path, seed: int, files: int = 40, layout: bool = False) -> None:
    """`files` files of each kind under `root`, from the fixtures recombined with seed `seed`;
    with `layout`, a config declaring LAYOUT."""
    rng = random.Random(seed)
    if layout:
        _write(root / ".portlint.yaml", LAYOUT)
    texts = fixture_files()
    for index in range(files):
        _write(root / f"pkg/module_{index}.py", _python(rng, texts["python"], index))
        _write(root / f"deploy/stream_{index}.yaml", _yaml(rng, texts["yaml"], index))
        _write(root / f"scripts/launch_{index}.sh", _joined(rng, texts["shell"], FILLER_SHELL, index, strip_shebang=True))
        _write(root / f"docs/page_{index}.md", _joined(rng, texts["markdown"], FILLER_MARKDOWN, index))
        # Files with nothing to check, most of a real repository: the prefilter drops them, or
        # (the page) the Markdown byte test.
        _write(root / f"pkg/cold_{index}.py", "import os\n" + COLD_PYTHON.format(n=index, v=index))
        _write(root / f"scripts/cold_{index}.sh", FILLER_SHELL.format(n=index))
        _write(root / f"deploy/crd_{index}.yaml", COLD_CRD.format(n=index))  # a port token, no site: the YAML byte test
        _write(root / f"docs/notes_{index}.md", COLD_MARKDOWN.format(n=index))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _python(rng: random.Random, modules: list[str], index: int) -> str:
    parts = ["import os\nimport socket\nimport subprocess\n"]
    for k in range(rng.randint(1, 4)):
        parts.append(COLD_PYTHON.format(n=f"{index}_{k}", v=index * 10 + k) * rng.randint(0, 3))
        module = "\n".join(line for line in rng.choice(modules).splitlines() if not line.startswith("from __future__"))
        wrap = rng.random()
        if wrap < 0.3:
            head = f"class Holder{index}_{k}:" if wrap < 0.2 else f"if os.environ.get('MODE_{k}'):"
            wrapped = f"\n\n{head}\n" + textwrap.indent(module or "pass", "    ") + "\n"
            module = wrapped if _parses(wrapped) else module  # indented, a string's lines may not be
        parts.append("\n" + module + "\n")
    return "".join(parts)


def _yaml(rng: random.Random, files: list[str], index: int) -> str:
    documents = [document for text in rng.sample(files, min(len(files), rng.randint(1, 4)))
                 for document in text.split("\n---\n") if document.strip() and not document.lstrip().startswith("%")]
    pieces: list[str] = []
    for k in range(rng.randint(2, 8)):
        pick = rng.random()
        if pick < 0.4 and documents:
            pieces.append(documents.pop(rng.randrange(len(documents))))
        elif pick < 0.75:
            pieces.append(COLD_CRD.format(n=f"{index}{k}"))
        else:
            pieces.append(COLD_CONFIG.format(n=f"{index}{k}"))
    pieces += documents
    text = pieces[0].rstrip("\n") + "\n"
    for piece in pieces[1:]:
        text += rng.choice(("---\n", "---\n", "...\n---\n", "--- \n")) + piece.rstrip("\n") + "\n"
    return text


def _joined(rng: random.Random, files: list[str], filler: str, index: int, strip_shebang: bool = False) -> str:
    parts = []
    for k in range(rng.randint(1, 3)):
        parts.append(filler.format(n=index * 10 + k))
        text = rng.choice(files)
        if strip_shebang and text.startswith("#!"):
            text = text.split("\n", 1)[-1]
        parts.append(text.rstrip("\n") + "\n")
    return "".join(parts)
