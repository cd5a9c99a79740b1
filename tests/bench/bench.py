"""How fast `portlint check` is next to just reading the repository (SPEC §8). Not a test.

`python tests/bench/bench.py N [--keep DIR]` builds a git repository of N copies of
fixtures/demo, each with ~30 filler files that hold no port (Python, YAML, shell,
Markdown as in shared/PERFORMANCE.md), and prints medians of 5 fresh-process runs
(after a warm-up) of: the floor (git ls-files, read every file, portlint's byte
prefilter), `portlint check`, and yamllint over the YAML files when it is installed.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
RUNS = 5
FLOOR = """import subprocess
from portlint.discover import prefilter
pattern = prefilter()
listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, check=True).stdout
for name in filter(None, listing.split(b"\\0")):
    with open(name, "rb") as handle:
        pattern.search(handle.read())
"""

# Filler files hold no port. Each is a header and a block repeated `blocks + index % 24`
# times, formatted with c (copy), i (index), k (block), k1 = k + 1, k10 = 10 * k, b = 2 ** (k % 8).
PY_HEAD = '"""Training utilities (stage {c}-{i}); support code for the report writers."""\nimport logging\n\nimport torch\n'
PY_BLOCK = '''

def stage_{c}_{i}_step_{k}(batch: dict[str, torch.Tensor], scale: float = {k1}.0) -> torch.Tensor:
    """Step {k}: normalise, mask and reduce the batch."""
    values = batch["logits"].float() / scale
    mask = batch["mask"].to(values.dtype)
    logging.debug("stage {c}-{i} step {k}: %s", tuple(values.shape))
    return (values * mask).sum(dim=-1) / mask.sum(dim=-1).clamp(min=1.0)
'''
YAML_HEAD = "# Recipe {c}-{i}: defaults for this experiment\nexperiment:\n  name: recipe-{c}-{i}\n"
YAML_BLOCK = '''stage_{k}:
  learning_rate: {k1}.0e-6
  warmup_steps: {k10}
  batch_size: {b}  # global batch
  datasets: ["math-{k}", "code-{k}"]
  scheduler: {{name: cosine, min_lr_ratio: 0.05}}
'''
SH_HEAD = '#!/bin/bash\nset -euo pipefail\n# Launch helper {c}-{i}\nEXP_NAME="run-{c}-{i}"\n'
SH_BLOCK = '''if [[ -d "$CKPT_DIR/step_{k}" ]]; then
  export RESUME_STEP={k}
  uv run python -m tools.convert --step {k} --out "$OUT_DIR/{k}" >>"$LOG_DIR/convert.log" 2>&1
fi
'''
MD_HEAD = "# Guide {c}-{i}\n"
MD_BLOCK = '''
## Step {k}

Run `uv run examples/run_{k}.py` and compare the report with the reference. The loss
should fall below {k1}.5 within {k1}00 steps; if it does not, lower the learning rate
(`policy.optimizer.kwargs.lr`) and check the data mix.
'''
# (path, header, block, blocks, files per copy): 12 Python, 7 YAML, 8 shell, 3 Markdown.
FILLERS = (
    ("nemo_rl/algorithms/stage_{i}.py", PY_HEAD, PY_BLOCK, 24, 12),
    ("examples/configs/recipes/recipe_{i}.yaml", YAML_HEAD, YAML_BLOCK, 36, 7),
    ("tools/launch_{i}.sh", SH_HEAD, SH_BLOCK, 36, 8),
    ("docs/guides/guide_{i}.md", MD_HEAD, MD_BLOCK, 20, 3),
)


def filler(header: str, block: str, blocks: int, copy: int, index: int) -> str:
    body = "".join(
        block.format(c=copy, i=index, k=k, k1=k + 1, k10=10 * k, b=2 ** (k % 8)) for k in range(blocks + index % 24)
    )
    return header.format(c=copy, i=index) + body


def root_config(copies: int) -> str:
    """The demo's layout, once at the root, with file globs that reach into every copy."""
    from ruamel.yaml import YAML

    config = YAML(typ="safe", pure=True).load(DEMO / ".portlint.yaml")
    for band in config["bands"].values():
        for site in band.get("sites", ()):
            if isinstance(site, dict) and "files" in site:
                site["files"] = "**/" + site["files"]
    config["frozen"] = [
        {**pair, "copies": f"demo-{c:03d}/{pair['copies']}", "source": [f"demo-{c:03d}/{s}" for s in pair["source"]]}
        for c in range(copies) for pair in config.get("frozen", ())
    ]
    return json.dumps(config, indent=2) + "\n"  # JSON is YAML


def build(root: Path, copies: int) -> None:
    for copy in range(copies):
        target = root / f"demo-{copy:03d}"
        shutil.copytree(DEMO, target, ignore=lambda d, names: [".portlint.yaml"] if Path(d) == DEMO else [])
        for pattern, header, block, blocks, count in FILLERS:
            for index in range(count):
                path = target / pattern.format(i=index)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(filler(header, block, blocks, copy, index))
    (root / ".portlint.yaml").write_text(root_config(copies))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def median_seconds(command: list[str], cwd: Path, exit_codes: tuple[int, ...] = (0,)) -> float:
    """Median wall time of RUNS fresh runs, after one warm-up run."""
    times = []
    for run in range(RUNS + 1):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if done.returncode not in exit_codes:
            sys.exit(f"{command[0]} exited {done.returncode}: {done.stderr.decode(errors='replace')[-2000:]}")
    return statistics.median(times[1:])


def measure(root: Path) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    mib = sum((root / name).stat().st_size for name in files) / 2**20
    portlint = Path(sys.executable).with_name("portlint")  # not a pyenv shim: ~70 ms of bash per run
    if not portlint.exists():
        portlint = Path(shutil.which("portlint") or sys.exit("portlint is not on PATH"))
    floor = median_seconds([sys.executable, "-c", FLOOR], root)
    check = median_seconds([str(portlint), "check", "--exit-zero", "-q"], root)
    print(f"{'files':>7} {'MiB':>7} {'floor s':>8} {'check s':>8} {'check/floor':>12}")
    print(f"{len(files):>7} {mib:>7.2f} {floor:>8.3f} {check:>8.3f} {check / floor:>12.2f}")
    if importlib.util.find_spec("yamllint") is not None:
        yaml_files = [name for name in files if name.endswith((".yaml", ".yml"))]
        command = [sys.executable, "-m", "yamllint", "-f", "parsable", *yaml_files]
        lint = median_seconds(command, root, exit_codes=(0, 1))  # 1: it found problems
        print(f"yamllint over {len(yaml_files)} YAML files: {lint:.3f} s (check/yamllint {check / lint:.2f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("copies", type=int, help="copies of fixtures/demo in the repository")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="build in DIR (a new directory) and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="portlint-bench-") as temp:
        root = args.keep or Path(temp) / "repo"
        root.mkdir(parents=True)
        build(root, args.copies)
        measure(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
