"""The `chronicle` command never prints a traceback: every failure is one line and an exit code
(1 failed, 2 bad usage, 3 the store, 4 a broken chain). The failures a file or a pipe causes run for
real in a subprocess, where a traceback would reach the terminal; the rest run in this process."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from tests.cli_helpers import ROOT, cli, cli_json
from tests.test_cli import demo_db, store  # noqa: F401 - the same demo store, a private copy per test


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.slow
def test_files_that_cannot_be_written_or_read_are_one_line(store, tmp_path):
    assert "No such file or directory: /missing/dir/x" in one_line(
        cli("export", "s1", "-o", "/missing/dir/x", store=store, expect=1, process=True))
    assert "Is a directory" in one_line(cli("export", "s1", "-o", str(tmp_path), store=store, expect=1, process=True))
    line = one_line(cli("import-adk", "/etc/passwd", store=f"sqlite:///{tmp_path}/new.db", expect=3, process=True))
    assert "not a database" in line and "/etc/passwd" in line


@pytest.mark.parametrize("args", [
    ("export",),
    ("export", "s1", "--all"),
    ("purge",),
    ("purge", "--yes"),
    ("analytics", "--by", "foo"),
    ("analytics", "--by", "tools,nope"),
    ("history",),  # argparse's own: a missing SESSION
])
def test_usage_errors_exit_2_everywhere(store, args):
    done = cli(*args, store=store, expect=2)
    assert "Traceback" not in done.stderr and done.stderr.strip()


@pytest.mark.slow
def test_verify_piped_into_head_keeps_its_exit_code(store):
    # Break a chain: edit one stored event's payload behind the log's back.
    path = store[len("sqlite:///"):]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE chronicle_events SET state = CAST(replace(CAST(state AS TEXT), 'Book me', 'Sell me') AS BLOB)"
                   " WHERE CAST(state AS TEXT) LIKE '%Book me%'")
    cli("verify", store=store, expect=4)
    for json_flag in ((), ("--json",)):
        reader = subprocess.Popen(
            [sys.executable, "-m", "tools.cli", "--store", store, "verify", *json_flag],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        reader.stdout.close()  # `| head -0`: the reader is gone before anything is printed
        err = reader.stderr.read()
        assert reader.wait(timeout=120) == 4, err
        assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_sessions_says_nothing_matched_rather_than_an_empty_store(store, tmp_path):
    done = cli("sessions", "--app", "nope", store=store)
    assert "no sessions match" in done.stderr and "nope" in done.stderr
    assert "no sessions yet" not in done.stderr
    from runtime.stores import open_store

    open_store(f"sqlite:///{tmp_path}/empty.db").close()
    assert "no sessions yet" in cli("sessions", store=f"sqlite:///{tmp_path}/empty.db").stderr


def test_state_at_and_diff_take_the_short_invocation_ids_rewind_takes(store):
    invocations = cli_json("history", "s1", store=store)["timeline"]["invocations"]
    second = invocations[1]["invocation_id"]
    short = second[:8]
    assert sum(i["invocation_id"].startswith(short) for i in invocations) == 1
    full = cli_json("state-at", "s1", f"before:{second}", store=store)
    assert cli_json("state-at", "s1", f"before:{short}", store=store) == full
    assert cli_json("diff", "s1", f"before:{short}", f"after:{short}", store=store) == cli_json(
        "diff", "s1", f"before:{second}", f"after:{second}", store=store)
    cli("rewind", "s1", "--before", short, store=store)  # the same prefix rewind accepts
