"""Running the real `chronicle` command in a subprocess, as an operator would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, store: str | None = None, expect: int | None = 0, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m tools.cli ARGS`` (with ``--store`` first when given); checks the exit code."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("CHRONICLE_STORE", "GOOGLE_API_KEY", "GEMINI_API_KEY", "NO_COLOR")}
    full_env.update(env or {})
    argv = [sys.executable, "-m", "tools.cli", *(["--store", store] if store else []), *args]
    done = subprocess.run(argv, cwd=ROOT, env=full_env, capture_output=True, text=True, input=input, timeout=300)
    if expect is not None:
        assert done.returncode == expect, (
            f"`chronicle {' '.join(args)}` exited {done.returncode}, expected {expect}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return done


def cli_json(*args: str, store: str | None = None) -> Any:
    return json.loads(cli(*args, "--json", store=store).stdout)
