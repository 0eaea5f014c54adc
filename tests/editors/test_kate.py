"""Kate with the configuration editors/README.md gives, in a real Kate under Xvfb, driven with
the keyboard (xdotool) the way a user works, against the real server.

The configuration is read out of the README (its Kate block), with only the command replaced:
Kate starts `editors/kate/tests/lsp_tap.py`, which starts the server and logs every message,
so the test sees what Kate shares (`didOpen`) and what it answers to the server's edit.

A CRLF file, open in Kate or not, is saved with exactly CRLF after a patch.

The story is the one that corrupted a buffer silently: `import sys` typed (unsaved) at the top
of `app.py`, then the reply's code action (LSP Client > Code Action, Alt+Return, on the
selected reply). Kate starts one language server per document, chosen by highlighting mode;
with a configuration that gives llm-patch only Markdown, `app.py` is never shared and the edit
is planned from the disk, one line off. With the README's, every document is shared, and the
saved file must be exactly the typed line plus the reply's change.

Skipped, saying why, without Kate, Xvfb and xdotool (Debian: `apt-get install kate xvfb
xdotool`). LLM_PATCH_KATE_KEEP=1 copies each test's work folder (the LSP log, Kate's output)
to $TMPDIR.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lsp_server.lsp.sharing import READ_FROM_DISK

REPO = Path(__file__).resolve().parents[2]
README = REPO / "editors" / "README.md"
TAP = REPO / "editors" / "kate" / "tests" / "lsp_tap.py"
TOOLS = {name: shutil.which(name) for name in ("kate", "Xvfb", "xdotool")}
MISSING = [name for name, path in TOOLS.items() if path is None]

pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"no {', '.join(MISSING)} (apt-get install kate xvfb xdotool)",
)

APP = 'def greet(name):\n    return "hi " + name\n\n\ndef area(r):\n    return 3.14 * r * r\n'
REPLY = (
    "Use more digits:\n\napp.py\n```\n<<<<<<< SEARCH\ndef area(r):\n    return 3.14 * r * r\n"
    "=======\ndef area(r):\n    return 3.14159 * r * r\n>>>>>>> REPLACE\n```\n"
)
TYPED = "import sys"
WANT = TYPED + "\n" + APP.replace("3.14 *", "3.14159 *")


def readme_kate_config() -> dict:
    """The JSON block of the README's Kate section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Kate") :]
    section = section[: section.index("\n### ", 1)]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block, "editors/README.md: no JSON block in the Kate section"
    return json.loads(block[1])


def wait_for(
    what: str,
    check: Callable[[], object],
    timeout: float = 30.0,
    detail: Callable[[], str] | None = None,
) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}" + (f"\n{detail()}" if detail else ""))


class Kate:
    """One Kate on its own X display, with a private home, and the tap's log."""

    def __init__(self, work: Path, servers: dict, files: dict[str, bytes] | None = None) -> None:
        self.work = work
        self.project = work / "project"
        self.log = work / "lsp.log"
        self.control = work / "control"
        self.home = work / "home"
        for d in (
            self.project / ".git",
            self.control,
            self.home / ".config" / "kate" / "lspclient",
        ):
            d.mkdir(parents=True)
        runtime = work / "run"
        runtime.mkdir(mode=0o700)
        (self.project / "app.py").write_text(APP, encoding="utf-8")
        (self.project / "build.sh").write_text("#!/bin/sh\necho build\n", encoding="utf-8")
        (self.project / "reply.llm.md").write_text(REPLY, encoding="utf-8")
        for name, data in (files or {}).items():
            (self.project / name).write_bytes(data)
        command = [sys.executable, str(TAP), str(self.log), str(self.control), "--"]
        command += [sys.executable, "-m", "lsp_server"]
        for server in servers["servers"].values():
            server["command"] = command
        (self.home / ".config" / "kate" / "lspclient" / "settings.json").write_text(
            json.dumps(servers), encoding="utf-8"
        )
        # The LSP Client plugin on, and the server's command line allowed: a user answers Kate's
        # "Do you want the LSP server to be started?" once; the answer is kept here.
        (self.home / ".config" / "katerc").write_text(
            "[Kate Plugins]\nlspclientplugin=true\n\n"
            f"[lspclient]\nAllowedServerCommandLines={' '.join(command)}\n",
            encoding="utf-8",
        )
        self.env = {
            **os.environ,
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": str(runtime),
            "QT_QPA_PLATFORM": "xcb",
        }
        self.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        self.procs: list[subprocess.Popen] = []

    def start(self, *files: str) -> None:
        # Xvfb picks a free display itself and says which (-displayfd): no race with another
        # X server starting on the machine at the same time
        read_end, write_end = os.pipe()
        xvfb = subprocess.Popen(
            [TOOLS["Xvfb"], "-displayfd", str(write_end), "-screen", "0", "1280x800x24"]
            + ["-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            start_new_session=True,
        )
        os.close(write_end)
        self.procs.append(xvfb)
        with os.fdopen(read_end, "rb") as displayfd:
            number = displayfd.readline().strip().decode()
        assert number.isdigit(), f"Xvfb did not start (exit {xvfb.poll()})"
        self.env["DISPLAY"] = f":{number}"
        with (self.work / "kate.out").open("wb") as out:
            kate = subprocess.Popen(
                [TOOLS["kate"], "-n", *files],
                cwd=self.project,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.insert(0, kate)
        self.main = wait_for(f"Kate's window on {files[-1]}", lambda: self.window(files[-1]), 60)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)

    def xdotool(self, *args: str) -> str:
        done = subprocess.run(
            [TOOLS["xdotool"], *args], env=self.env, capture_output=True, text=True, timeout=30
        )
        return done.stdout

    def window(self, name: str) -> str | None:
        found = self.xdotool("search", "--onlyvisible", "--name", "^" + re.escape(name) + " ")
        return found.split()[0] if found.split() else None

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.xdotool("key", "--clearmodifiers", key)
            time.sleep(0.15)

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "30", text)

    def messages(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def describe(self) -> str:
        """What a failure message needs: Kate's title and the last messages."""
        tail = [json.dumps(m)[:300] for m in self.messages()[-8:]]
        return f"Kate shows: {self.title() if hasattr(self, 'main') else '?'}\n" + "\n".join(tail)

    def wait(self, what: str, check: Callable[[], object], timeout: float = 30.0) -> object:
        return wait_for(what, check, timeout, self.describe)

    def told(self, method: str, needle: str) -> list[str]:
        """The texts of the server's `method` notifications to Kate that contain `needle`."""
        return [
            m["message"]["params"]["message"]
            for m in self.messages()
            if m["from"] == "server"
            and m["message"].get("method") == method
            and needle in m["message"]["params"]["message"]
        ]

    def opened(self) -> set[str]:
        return {
            m["message"]["params"]["textDocument"]["uri"].rsplit("/", 1)[-1]
            for m in self.messages()
            if m["from"] == "editor" and m["message"].get("method") == "textDocument/didOpen"
        }

    def sent(self, method: str, since: int = 0) -> list[dict]:
        return [
            m["message"] for m in self.messages()[since:] if m["message"].get("method") == method
        ]

    def answers(self, ids: set, since: int = 0) -> list[dict]:
        return [
            m["message"]
            for m in self.messages()[since:]
            if "method" not in m["message"] and m["message"].get("id") in ids
        ]

    def outline(self, name: str) -> list[dict] | None:
        """The server's latest answer to Kate's `documentSymbol` request for `name`."""
        asked = {
            m["id"]: m["params"]["textDocument"]["uri"].rsplit("/", 1)[-1]
            for m in self.sent("textDocument/documentSymbol")
        }
        found = None
        for answer in self.answers(set(asked)):
            if asked[answer["id"]] == name and answer.get("result"):
                found = answer["result"]
        return found

    def title(self) -> str:
        return self.xdotool("getwindowname", self.main).strip()

    def focus(self, name: str) -> None:
        """The document `name` in front, Kate's window focused."""
        self.xdotool("windowfocus", "--sync", self.main)
        if not self.title().startswith(name + " "):
            # Kate's Quick Open (Ctrl+Alt+O): the document by name
            self.keys("ctrl+alt+o")
            time.sleep(0.5)
            self.type(name)
            time.sleep(0.5)
            self.keys("Return")
            self.wait(f"{name} in front", lambda: self.title().startswith(name + " "), 15)
            self.xdotool("windowfocus", "--sync", self.main)

    def apply_reply(self, name: str) -> None:
        """What a user does: the reply selected, LSP Client > Code Action (Alt+Return), the
        first entry (*Apply LLM patch ...*); waits for Kate's answer to the server's edit.

        Kate takes a server's edit only within 2 s of running the command, and then answers
        `applied: false` with no reason; a user runs the action again (editors/README.md says
        so), and so does this, once. Any other answer is the result."""
        answer = self._code_action(name)
        if answer.get("applied") is False and not answer.get("failureReason"):
            answer = self._code_action(name)  # too late for Kate: once more, as a user would
        assert answer.get("applied") is True, (answer, self.describe())

    def _code_action(self, name: str) -> dict:
        self.focus(name)
        self.keys("ctrl+a")
        mark = len(self.messages())
        self.keys("alt+Return")
        requests = self.wait(
            "the code action request", lambda: self.sent("textDocument/codeAction", mark)
        )
        ids = {r["id"] for r in requests}
        actions = self.wait("the code actions", lambda: self.answers(ids, mark))
        titles = [a.get("title") for a in actions[-1].get("result") or []]
        assert titles and titles[0].startswith("Apply LLM patch"), titles
        time.sleep(0.5)
        self.keys("Down", "Return")
        edit = self.wait("the server's edit", lambda: self.sent("workspace/applyEdit", mark), 30)
        answered = self.wait(
            "Kate's answer to the edit", lambda: self.answers({edit[0]["id"]}, mark), 30
        )
        return answered[0].get("result") or {}


@pytest.fixture
def kate_work(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    if os.environ.get("LLM_PATCH_KATE_KEEP"):
        kept = Path(os.environ.get("TMPDIR", "/tmp")) / f"kate-{tmp_path.name}"
        shutil.copytree(tmp_path, kept, dirs_exist_ok=True)


def test_readme_kate_configuration_shares_every_document_and_applies_on_unsaved_text(
    kate_work: Path,
) -> None:
    kate = Kate(kate_work, readme_kate_config())
    try:
        kate.start("reply.llm.md", "build.sh", "app.py")
        # every document Kate shows is shared with llm-patch, Python and Bash included (Kate's
        # default servers for them come first for a server name that sorts after theirs)
        # (Kate shares a document when a view shows it: each is looked at in turn)
        for name in ("build.sh", "app.py"):
            kate.focus(name)
            kate.wait(f"{name} shared (didOpen)", lambda name=name: name in kate.opened())

        # unsaved work at the top of app.py
        kate.keys("ctrl+Home")
        kate.type(TYPED)
        kate.keys("Return")
        time.sleep(1.0)

        # the reply, selected; LSP Client > Code Action (Alt+Return); its first entry
        kate.apply_reply("reply.llm.md")

        # File > Save All (Ctrl+L), then the file on disk
        kate.focus("app.py")
        kate.keys("ctrl+l")
        kate.wait(
            "app.py saved with the typed line",
            lambda: (kate.project / "app.py").read_text(encoding="utf-8").startswith(TYPED),
        )
        assert (kate.project / "app.py").read_text(encoding="utf-8") == WANT

        # Kate's symbol outline asks every document's symbols, advertised or not: each is
        # answered (it was "method not found", retried four times a change), the reply's
        # with its block
        kate.focus("reply.llm.md")
        outline = kate.wait("the reply's outline", lambda: kate.outline("reply.llm.md"), 30)
        assert [s["name"] for s in outline] == ["✓ app.py (already applied)"], outline
        asked = {m["id"] for m in kate.sent("textDocument/documentSymbol")}
        errors = [a for a in kate.answers(asked) if "error" in a]
        assert asked and not errors, errors

        # at start-up: the log line; no message (the README's configuration shares every
        # document and turns it off in initializationOptions, which Kate sends at start)
        assert kate.told("window/logMessage", READ_FROM_DISK)
        assert kate.told("window/showMessage", "highlightingModeRegex") == []
    finally:
        kate.stop()


def test_kate_sharing_only_markdown_is_told_at_start_up(kate_work: Path) -> None:
    """The set-up that corrupted a buffer (llm-patch for Markdown only): Kate, which sends no
    `clientInfo`, is known by its process and told once what to do."""
    config = readme_kate_config()
    (server,) = config["servers"].values()
    server["highlightingModeRegex"] = "^Markdown$"
    server.pop("initializationOptions", None)
    kate = Kate(kate_work, config)
    try:
        kate.start("reply.llm.md")
        kate.wait(
            "the start-up message",
            lambda: kate.told("window/showMessage", "highlightingModeRegex"),
        )
        (told,) = kate.told("window/showMessage", "highlightingModeRegex")
        assert "editors/README.md" in told
        assert kate.told("window/logMessage", READ_FROM_DISK)
    finally:
        kate.stop()


CRLF = b"a = 1\r\nb = 2\r\nc = 3\r\n"
CRLF_WANT = b"a = 1\r\nb = 2\r\ny = x + 1\r\nz = 4\r\nc = 3\r\n"


def crlf_block(path: str) -> str:
    return (
        f"{path}\n```\n<<<<<<< SEARCH\nb = 2\n=======\nb = 2\ny = x + 1\nz = 4\n"
        ">>>>>>> REPLACE\n```\n"
    )


def test_readme_kate_configuration_keeps_crlf_files_crlf(kate_work: Path) -> None:
    """A CRLF file patched in Kate, open or not, is saved with exactly CRLF line ends."""
    reply = (
        "Two more lines in each:\n\n"
        + crlf_block("dos_open.py")
        + "\n"
        + crlf_block("dos_closed.py")
    )
    kate = Kate(
        kate_work,
        readme_kate_config(),
        {"dos_open.py": CRLF, "dos_closed.py": CRLF, "crlf.llm.md": reply.encode()},
    )
    try:
        kate.start("crlf.llm.md", "dos_open.py")
        kate.wait("dos_open.py shared", lambda: "dos_open.py" in kate.opened())
        kate.apply_reply("crlf.llm.md")
        kate.focus("dos_open.py")
        kate.keys("ctrl+l")  # File > Save All
        for name in ("dos_open.py", "dos_closed.py"):
            kate.wait(
                f"{name} saved", lambda name=name: (kate.project / name).read_bytes() != CRLF, 30
            )
        assert (kate.project / "dos_open.py").read_bytes() == CRLF_WANT
        assert (kate.project / "dos_closed.py").read_bytes() == CRLF_WANT
    finally:
        kate.stop()
