"""A message the server cannot read (a body that is not JSON) costs one line in the editor's log
and a message to the user; the server answers the next request as if nothing had happened."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _frames(data: bytes) -> list[dict]:
    messages = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int(next(line for line in head.split(b"\r\n") if line.startswith(b"Content-Length:")).split(b":")[1])
        messages.append(json.loads(rest[:length]))
        data = rest[length:]
    return messages


def test_a_body_that_is_not_json_is_one_line_and_the_server_goes_on(tmp_path: Path) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}
    stream = b"".join([
        _frame(b"{bad}"),
        _frame(json.dumps(initialize).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}).encode()),
        _frame(json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()),
    ])
    done = subprocess.run([sys.executable, "-m", "portlint", "server"], input=stream, capture_output=True,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode() == ("portlint server: Unable to handle message: JSONDecodeError: Expecting property "
                                    "name enclosed in double quotes: line 1 column 2 (char 1)\n")
    messages = _frames(done.stdout)
    assert messages[0] == {"jsonrpc": "2.0", "method": "window/showMessage", "params": {
        "type": 1, "message": "Error in server: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"}}
    answered = {message["id"]: message for message in messages if "id" in message}
    assert answered[1]["result"]["serverInfo"]["name"] == "portlint" and answered[2]["result"] is None
