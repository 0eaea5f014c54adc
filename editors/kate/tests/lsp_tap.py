"""A tap between Kate and the llm-patch server, for the Kate test (tests/editors/test_kate.py).

    python3 lsp_tap.py LOG CONTROL_DIR -- SERVER_COMMAND...

Kate starts this as its language server; it starts the real server and passes every message
through unchanged, writing each one to LOG (one JSON object a line: {"from": "editor" |
"server", "message": ...}). A request the test wants the server to receive as if the user had
run it in Kate (the `llmPatch.apply` a code action runs) is a file `*.json` dropped into
CONTROL_DIR: it is sent to the server with an id of its own, and the server's answer is
logged ({"from": "server", "answer_to": name}) instead of being passed to Kate, which never
asked. Everything the server sends Kate meanwhile (`workspace/applyEdit`) goes to Kate.

Only the standard library: Kate runs it with whatever Python the test names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO


def read_message(stream: BinaryIO) -> bytes | None:
    """One framed message's body, or None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        return None
    return stream.read(length)


def write_message(stream: BinaryIO, body: bytes, lock: threading.Lock) -> None:
    with lock:
        stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stream.flush()


def main() -> int:
    log_path, control = Path(sys.argv[1]), Path(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    to_server, to_editor, log_lock = threading.Lock(), threading.Lock(), threading.Lock()
    injected: dict[str, str] = {}  # request id -> control file name
    log = log_path.open("a", encoding="utf-8")

    def note(entry: dict) -> None:
        with log_lock:
            log.write(json.dumps(entry) + "\n")
            log.flush()

    def editor_to_server() -> None:
        while (body := read_message(sys.stdin.buffer)) is not None:
            note({"from": "editor", "message": json.loads(body)})
            write_message(server.stdin, body, to_server)
        server.stdin.close()

    def server_to_editor() -> None:
        while (body := read_message(server.stdout)) is not None:
            message = json.loads(body)
            answer_to = (
                injected.pop(str(message.get("id")), None) if "method" not in message else None
            )
            if answer_to is not None:
                note({"from": "server", "answer_to": answer_to, "message": message})
                continue
            note({"from": "server", "message": message})
            write_message(sys.stdout.buffer, body, to_editor)

    def watch_control() -> None:
        count = 0
        while server.poll() is None:
            for request in sorted(control.glob("*.json")):
                count += 1
                message = json.loads(request.read_text(encoding="utf-8"))
                message["id"] = f"tap-{count}"
                injected[message["id"]] = request.stem
                request.rename(request.with_suffix(".sent"))
                note({"from": "tap", "message": message})
                write_message(server.stdin, json.dumps(message).encode(), to_server)
            time.sleep(0.05)

    def logged(target):
        def run() -> None:
            try:
                target()
            except Exception as error:  # the test reads the log: say why the tap stopped
                note({"from": "tap", "error": f"{target.__name__}: {error!r}"})
                raise

        return run

    threading.Thread(target=logged(server_to_editor), daemon=True).start()
    threading.Thread(target=logged(watch_control), daemon=True).start()
    editor_to_server()
    try:
        return server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        return 1
    finally:
        os.fsync(log.fileno())


if __name__ == "__main__":
    sys.exit(main())
