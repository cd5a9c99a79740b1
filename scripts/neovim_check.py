"""Headless Neovim against `portlint server`: the editor setup docs/editors.md shows, exercised.

    python scripts/neovim_check.py [--nvim PATH] [--timeout SECONDS]

Builds a small git repository in a temporary folder (a layout and a YAML file whose port
drifted from it), opens the YAML file in `nvim --headless` with no user config, starts the
server as the docs say (`vim.lsp.start` where Neovim has it, else `vim.lsp.start_client`
and `vim.lsp.buf_attach_client`: Neovim 0.7), waits for the buffer's diagnostics and writes
them to a file, which this script compares with the one diagnostic expected. The server is
this interpreter's `python -m portlint server`. Exit 0 when it arrived as expected, 1 when not.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LAYOUT = "bands:\n  master:\n    range: 1400-1999\n    sites: [master_port_range_low]\n"
DATA = "cluster:\n  master_port_range_low: 1500\n"
EXPECTED = {
    "code": "PL301",
    "message": "cluster.master_port_range_low=1500 drifted from the layout: band master gives 1400",
    "lnum": 1, "col": 25, "end_lnum": 1, "end_col": 29,  # 0-based: the literal `1500`
    "source": "portlint",
}

# The client as docs/editors.md configures it; the result (or why there is none) to OUT.
LUA = r"""
local out, cmd, wait = vim.env.PORTLINT_OUT, vim.fn.json_decode(vim.env.PORTLINT_CMD), tonumber(vim.env.PORTLINT_WAIT)
local function finish(value)
  vim.fn.writefile({ vim.fn.json_encode(value) }, out)
  vim.cmd("qall!")
end
local root = vim.fn.getcwd()
if vim.lsp.start then
  vim.lsp.start({ name = "portlint", cmd = cmd, root_dir = root })
else
  local id = vim.lsp.start_client({ name = "portlint", cmd = cmd, root_dir = root })
  vim.lsp.buf_attach_client(0, id)
end
local arrived = vim.wait(wait, function() return #vim.diagnostic.get(0) > 0 end, 50)
if not arrived then
  finish({ error = "no diagnostic within " .. wait .. " ms" })
  return
end
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = d.user_data and d.user_data.lsp or {}
  table.insert(found, { code = d.code or lsp.code, message = d.message, lnum = d.lnum, col = d.col,
                        end_lnum = d.end_lnum, end_col = d.end_col, source = d.source })
end
finish({ diagnostics = found, version = vim.version() })
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--nvim", default=shutil.which("nvim"), help="the Neovim binary (default: nvim on PATH)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for the diagnostic (default 60)")
    args = parser.parse_args(argv)
    if not args.nvim:
        print("neovim_check: no nvim on PATH", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / ".portlint.yaml").write_text(LAYOUT)
        (root / "a.yaml").write_text(DATA)
        script, out = Path(folder) / "check.lua", Path(folder) / "out.json"
        script.write_text(LUA)
        env = {
            "PORTLINT_OUT": str(out),
            "PORTLINT_CMD": json.dumps([sys.executable, "-m", "portlint", "server"]),
            "PORTLINT_WAIT": str(int(args.timeout * 1000)),
            "HOME": folder, "XDG_CONFIG_HOME": folder, "XDG_DATA_HOME": folder, "XDG_STATE_HOME": folder,
            "XDG_CACHE_HOME": folder,
        }
        command = [args.nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "a.yaml", "-c", f"luafile {script}"]
        try:
            done = subprocess.run(command, cwd=root, env={**os.environ, **env}, capture_output=True, text=True,
                                  timeout=args.timeout + 30, check=False)
        except subprocess.TimeoutExpired:
            print("neovim_check: Neovim did not exit", file=sys.stderr)
            return 1
        if not out.is_file():
            print(f"neovim_check: Neovim wrote no result (exit {done.returncode}): {done.stderr.strip()}", file=sys.stderr)
            return 1
        result = json.loads(out.read_text())
    if "error" in result:
        print(f"neovim_check: {result['error']}", file=sys.stderr)
        return 1
    if result["diagnostics"] != [EXPECTED]:
        print(f"neovim_check: expected [{EXPECTED}], got {result['diagnostics']}", file=sys.stderr)
        return 1
    version = result["version"]
    print(f"Neovim {version['major']}.{version['minor']}.{version['patch']}: portlint's diagnostic arrived "
          f"({EXPECTED['code']} at line {EXPECTED['lnum'] + 1}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
