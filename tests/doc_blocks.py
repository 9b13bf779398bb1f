"""Running the docs' code blocks as a reader pastes them (tests/test_docs.py).

`python -m tests.doc_blocks python DOC` runs DOC's Python blocks in order in this one process, each
as its own script (`__main__`), in the current directory, and the `chronicle …` lines of its shell
blocks in-process (not `chronicle serve` or `chronicle run`, which wait for a client or a person); it prints a JSON report: per block, its output, its error, and each line that
shows what a `print` on it prints (a comment `# → TEXT`, or `# → TEXT — a gloss`) with what it printed.

A Python block with no import is an excerpt of a script shown whole elsewhere (the README's
"given a runner…" fragments): it is compiled, not run. Shell lines other than `chronicle …` (a
worker that runs until Ctrl-C, `pip install`) are not run here.

`python -m tests.doc_blocks shell DOC` runs DOC's shell blocks in order in one bash, each block's
output kept apart, with `chronicle` answered by this process: a fork of it, the command's modules
already imported, runs each `chronicle …` with the caller's stdin, stdout, stderr, directory and
environment (a fresh interpreter per command would cost a second or more each).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

SHOWN = re.compile(r"#\s*→\s?(.*)$")


@dataclass
class Block:
    lang: str
    text: str
    line: int  # the doc's line of the block's first code line


def blocks(markdown: str) -> list[Block]:
    found, lang, start, lines = [], None, 0, []
    for number, line in enumerate(markdown.splitlines(), 1):
        fence = re.match(r"^```\s*([\w-]*)", line)
        if fence and lang is None:
            lang, start, lines = fence.group(1) or "text", number + 1, []
        elif line.startswith("```") and lang is not None:
            found.append(Block(lang, "\n".join(lines) + "\n", start))
            lang = None
        elif lang is not None:
            lines.append(line)
    return found


def is_excerpt(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:  # top-level await: an excerpt of an async function
        return True
    return not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(tree))


# -- Python blocks -------------------------------------------------------------------------------


@dataclass
class PythonResult:
    line: int
    ran: bool
    output: str = ""
    error: Optional[str] = None
    shown: list[dict[str, Any]] = field(default_factory=list)  # {"line", "expected", "printed"}


def run_python(doc: Path) -> list[dict[str, Any]]:
    from tools.cli import main as chronicle

    results = []
    for block in blocks(doc.read_text()):
        if block.lang in ("sh", "bash"):
            out = io.StringIO()
            for command in block.text.splitlines():
                if not command.startswith("chronicle "):
                    continue
                argv = shlex.split(command, comments=True)
                if argv[:1] == ["chronicle"] and argv[1:2] not in (["serve"], ["run"]):  # not a server, not a chat
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                        code = chronicle(argv[1:])
                    if code:
                        results.append(asdict(PythonResult(block.line, True, out.getvalue(), f"exit {code}: {command}")))
            continue
        if block.lang != "python":
            continue
        name = f"{doc.name}:{block.line}"
        code_text = "\n" * (block.line - 1) + block.text  # line numbers are the doc's
        result = PythonResult(block.line, ran=not is_excerpt(block.text))
        if not result.ran:
            try:
                compile(code_text, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            except SyntaxError as e:
                result.error = f"SyntaxError: {e}"
            results.append(asdict(result))
            continue
        printed: dict[int, list[str]] = {}
        out = io.StringIO()

        def shown_print(*args: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
            text = sep.join(str(a) for a in args)
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != name:
                frame = frame.f_back
            if frame is not None and file is None:
                printed.setdefault(frame.f_lineno, []).append(text)
            (file or out).write(text + end)

        namespace = {"__name__": "__main__", "__file__": str(Path.cwd() / f"block_{block.line}.py"), "print": shown_print}
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code_text, name, "exec"), namespace)
        except BaseException:  # noqa: BLE001 - reported, with where in the doc
            result.error = traceback.format_exc(limit=-4)
        result.output = out.getvalue()
        for offset, line in enumerate(block.text.splitlines()):
            match = SHOWN.search(line)
            if match and "print(" in line:
                number = block.line + offset
                expected = match.group(1).split(" — ")[0].strip()  # after " — ", a gloss for the reader
                result.shown.append({"line": number, "expected": expected, "printed": printed.get(number)})
        results.append(asdict(result))
    return results


# -- shell blocks ----------------------------------------------------------------------------------

CLIENT = r"""
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["CHRONICLE_DOCS_SOCKET"])
env = {k: v for k, v in os.environ.items() if k.startswith(("CHRONICLE_", "GOOGLE_", "COLUMNS", "NO_COLOR", "TERM"))}
message = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": env}).encode()
socket.send_fds(s, [len(message).to_bytes(4, "big") + message], [0, 1, 2])
code = s.recv(8)
sys.exit(int(code or b"1"))
"""


def _serve_commands(listener: socket.socket) -> None:
    """Answers each `chronicle …` of the shell in a fork of this process."""
    from tools.cli import main as chronicle

    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        size = int.from_bytes(data[:4], "big")
        while len(data) < size + 4:
            data += conn.recv(1 << 16)
        request = json.loads(data[4:4 + size])
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for i, fd in enumerate(fds):
                    os.dup2(fd, i)
                os.chdir(request["cwd"])
                for key in [k for k in os.environ if k.startswith("CHRONICLE_") and k != "CHRONICLE_DOCS_SOCKET"]:
                    del os.environ[key]
                os.environ.update(request["env"])
                sys.stdin = open(0, closefd=False)
                sys.stdout = open(1, "w", closefd=False)
                sys.stderr = open(2, "w", closefd=False)
                code = chronicle(request["argv"])
                sys.stdout.flush()
                sys.stderr.flush()
            except SystemExit as e:  # argparse's usage errors
                code = e.code if isinstance(e.code, int) else 2
            except BaseException:  # noqa: BLE001
                traceback.print_exc()
            finally:
                try:
                    conn.sendall(str(code).encode())
                finally:
                    os._exit(code)
        os.waitpid(pid, 0)
        for fd in fds:
            os.close(fd)
        conn.close()


def run_shell(doc: Path) -> list[dict[str, Any]]:
    import tools.cli.commands  # noqa: F401 - imported once, before the forks
    from tools.cli.main import build_parser

    build_parser()
    folder = Path(tempfile.mkdtemp(prefix="docs-shell-"))
    (folder / "bin").mkdir()
    client = folder / "bin" / "chronicle"
    client.write_text(f"#!{sys.executable} -S\n{CLIENT}")
    client.chmod(0o755)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(folder / "socket"))
    listener.listen()
    threading.Thread(target=_serve_commands, args=(listener,), daemon=True).start()

    shell_blocks = [b for b in blocks(doc.read_text()) if b.lang in ("sh", "bash")]
    script = ["cd " + shlex.quote(str(Path.cwd()))]
    for i, block in enumerate(shell_blocks):
        script.append(f"{{\n{block.text}\n}} > {folder}/out{i} 2>&1 < /dev/null")
    env = {**os.environ, "PATH": f"{folder / 'bin'}:{os.environ['PATH']}", "CHRONICLE_DOCS_SOCKET": str(folder / "socket"),
           "COLUMNS": "200"}
    env.pop("CHRONICLE_STORE", None)
    subprocess.run(["bash", "-c", "\n".join(script)], env=env, timeout=600)
    listener.close()
    return [{"line": b.line, "output": (folder / f"out{i}").read_text() if (folder / f"out{i}").exists() else None}
            for i, b in enumerate(shell_blocks)]


if __name__ == "__main__":
    kind, path = sys.argv[1], Path(sys.argv[2])
    report = run_python(path) if kind == "python" else run_shell(path)
    sys.__stdout__.write("\n@@REPORT@@" + json.dumps(report) + "\n")
