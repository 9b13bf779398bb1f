"""Logging set-up at google-adk 2.13's path (`cli.utils.logs`), which many of its sample agents
call at import. Chronicle's loggers are named after its packages, so these set the level of
those loggers where ADK sets its `google_adk` logger's."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time

LOGGING_FORMAT = "%(asctime)s - %(levelname)s - %(filename)s:%(lineno)d - %(message)s"
# The packages whose loggers these functions set ("google_adk" for code that logs under ADK's name).
CHRONICLE_LOGGERS = ("runtime", "domain", "projections", "google_adk")


def _set_chronicle_level(level: int) -> None:
    for name in CHRONICLE_LOGGERS:
        logging.getLogger(name).setLevel(level)


def setup_adk_logger(level: int = logging.INFO) -> None:
    """Logs to stderr at `level`, for the root logger and Chronicle's."""
    logging.basicConfig(level=level, format=LOGGING_FORMAT)
    _set_chronicle_level(level)


def log_to_tmp_folder(
    level: int = logging.INFO,
    *,
    sub_folder: str = "agents_log",
    log_file_prefix: str = "agent",
    log_file_timestamp: str = time.strftime("%Y%m%d_%H%M%S"),
) -> str:
    """Sends all logging to `<tmp>/<sub_folder>/<prefix>.<timestamp>.log` instead of stderr, points
    `<prefix>.latest.log` at it when a symlink can be made, and returns the file's path."""
    log_dir = os.path.join(tempfile.gettempdir(), sub_folder)
    os.makedirs(log_dir, exist_ok=True)
    log_path = os.path.join(log_dir, f"{log_file_prefix}.{log_file_timestamp}.log")
    handler = logging.FileHandler(log_path, mode="w")
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(LOGGING_FORMAT))
    root = logging.getLogger()
    root.setLevel(level)
    root.handlers = [handler]
    _set_chronicle_level(level)
    print(f"Log setup complete: {log_path}", file=sys.stderr)
    latest = os.path.join(log_dir, f"{log_file_prefix}.latest.log")
    try:
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(log_path, latest)
        print(f"To access latest log: tail -F {latest}", file=sys.stderr)
    except OSError:
        print(f"To access latest log: tail -F {log_path}", file=sys.stderr)
    return log_path
