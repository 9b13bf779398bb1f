"""Start a throwaway PostgreSQL server for tests and benchmarks.

Both use it: the suite's ``pg_server`` fixture (tests/conftest.py) and ``chronicle bench``
when no ``--postgres`` is given (tools/bench/common.py). The benchmarks ship with the command
and cannot import from ``tests/``, so it lives here, beside both.

PostgreSQL refuses to run as root, so when we are root the server runs as the
``postgres`` user. The data directory lives in a temporary folder and is removed on stop.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass


class PostgresUnavailable(RuntimeError):
    pass


def _bin_dir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return os.path.dirname(found[-1])
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl:
        return os.path.dirname(pg_ctl)
    raise PostgresUnavailable("PostgreSQL binaries (pg_ctl, initdb) not found; install postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    directory: str
    port: int
    _as_user: list[str]
    _bin: str

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, dbname: str, *, template: str | None = None) -> str:
        """A new database: empty, or a copy of ``template`` (a file copy, much cheaper than
        creating a schema again; nobody may be connected to the template meanwhile)."""
        import psycopg

        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"{copy}')
        return self.url(dbname)

    def drop_database(self, dbname: str) -> None:
        """Drops a database, closing whatever connections are still open on it."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')

    def stop(self) -> None:
        subprocess.run(
            [*self._as_user, f"{self._bin}/pg_ctl", "-D", f"{self.directory}/data", "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(self.directory, ignore_errors=True)


def start_postgres(*, fsync: bool = True) -> PgServer:
    bin_dir = _bin_dir()
    as_user: list[str] = []
    directory = tempfile.mkdtemp(prefix="chronicle-pg-")
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(directory, "postgres", "postgres")
    port = _free_port()
    data = f"{directory}/data"

    def run(*args: str) -> None:
        result = subprocess.run([*as_user, *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise PostgresUnavailable(f"{' '.join(args[:2])} failed: {result.stderr or result.stdout}")

    try:
        run(f"{bin_dir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions")
        options = (
            f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c max_connections=200"
            f" -c fsync={'on' if fsync else 'off'} -c shared_buffers=128MB"
        )
        run(f"{bin_dir}/pg_ctl", "-D", data, "-o", options, "-l", f"{directory}/log", "-w", "start")
    except Exception:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    server = PgServer(directory, port, as_user, bin_dir)
    deadline = time.time() + 20
    while True:
        with contextlib.suppress(Exception):
            import psycopg

            psycopg.connect(server.url(), connect_timeout=2).close()
            return server
        if time.time() > deadline:
            server.stop()
            raise PostgresUnavailable("PostgreSQL started but does not accept connections")
        time.sleep(0.1)
