"""Files a skill's script writes, saved as artifacts (``SkillToolset(save_output_artifacts=True)``).

The script program snapshots the sandbox folder before the script runs and, whatever happens,
reports every file the script created or changed on one stdout line: a marker with a fresh nonce
(so the script cannot forge it), then JSON of the files (base64) and of those over the limits. The
tool takes that line out of stdout and saves each file as an artifact of the session.
"""

from __future__ import annotations

import base64
import json
import logging
import pathlib
from typing import Any, Optional

from google.genai import types

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_FILES = 50
_MARKER = "__ADK_SKILL_GENERATED_FILES__:"

# Module-level helpers of the script program (its {helpers}).
HELPERS = """
import base64 as _b64
import mimetypes as _mimetypes
import stat as _stat


def _file_stats(root):
    # Every regular file under root (bar bytecode): relative path -> (size, mtime).
    stats = {{}}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        for name in names:
            full = os.path.join(folder, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            if _stat.S_ISREG(st.st_mode) and not name.endswith('.pyc'):
                stats[os.path.relpath(full, root).replace(os.sep, '/')] = (st.st_size, st.st_mtime_ns)
    return stats


def _report_outputs(root, before):
    files, skipped, total = [], [], 0
    for rel, stat_ in sorted(_file_stats(root).items()):
        if before.get(rel) == stat_:
            continue
        size = stat_[0]
        if size > {max_file} or total + size > {max_total} or len(files) >= {max_files}:
            skipped.append(rel)
            continue
        with open(os.path.join(root, rel), 'rb') as f:
            data = f.read()
        total += len(data)
        files.append({{'path': rel, 'content_b64': _b64.b64encode(data).decode('ascii'),
                      'mime_type': _mimetypes.guess_type(rel)[0] or 'application/octet-stream'}})
    if files or skipped:
        print({marker!r} + json.dumps({{'files': files, 'skipped_paths': skipped[:{max_files}]}}), flush=True)
"""

SNAPSHOT = "_before = _file_stats(root)"
REPORT = """\
            try:
                _report_outputs(root, _before)
            except Exception:
                pass"""


def marker(nonce: str) -> str:
    return f"{_MARKER}{nonce}:"


def helpers(nonce: str) -> str:
    return HELPERS.format(max_file=MAX_FILE_BYTES, max_total=MAX_TOTAL_BYTES, max_files=MAX_FILES, marker=marker(nonce))


def extract(stdout: str, nonce: str) -> tuple[str, list[dict[str, Any]], list[str]]:
    """(stdout without the report line, the files reported, the paths skipped)."""
    tag = marker(nonce)
    if not stdout or tag not in stdout:
        return stdout or "", [], []
    kept: list[str] = []
    files: list[dict[str, Any]] = []
    skipped: list[str] = []
    for line in stdout.splitlines(keepends=True):
        at = line.find(tag)
        if at == -1:
            kept.append(line)
            continue
        if line[:at]:  # the script's own output, printed without a newline before the report
            kept.append(line[:at] if line[:at].endswith("\n") else line[:at] + "\n")
        try:
            report = json.loads(line[at + len(tag) :])
        except ValueError:
            logger.warning("Failed to parse skill generated-files marker payload")
            continue
        files += [item for item in report.get("files", []) if isinstance(item, dict)]
        skipped += [path for path in report.get("skipped_paths", []) if isinstance(path, str)]
    return "".join(kept), files, skipped


async def save(tool_context: Any, files: list[dict[str, Any]], skipped: list[str]) -> list[str]:
    """Saves the reported files as artifacts named by their path in the sandbox; returns the
    names saved (over-limit ones are added to ``skipped``, unsafe names left out)."""
    if not files:
        return []
    if tool_context is None or tool_context._invocation_context.artifact_service is None:
        logger.warning("Skill script produced %d file(s) but there is no artifact service; not saved.", len(files))
        return []
    saved: list[str] = []
    total = 0
    for item in files:
        name = _safe_name(item.get("path"))
        data = _decoded(item.get("content_b64"))
        if name is None or data is None:
            logger.warning("Skipping generated skill file: %r", item.get("path"))
            continue
        if len(data) > MAX_FILE_BYTES or total + len(data) > MAX_TOTAL_BYTES or len(saved) >= MAX_FILES:
            if name not in skipped and len(skipped) < MAX_FILES:
                skipped.append(name)
            continue
        mime_type = item.get("mime_type") or "application/octet-stream"
        try:
            await tool_context.save_artifact(filename=name, artifact=types.Part.from_bytes(data=data, mime_type=mime_type))
        except Exception:  # noqa: BLE001 - the others are still worth saving
            logger.exception("Failed to save skill-generated artifact '%s'", name)
            continue
        saved.append(name)
        total += len(data)
    return saved


def _safe_name(path: Any) -> Optional[str]:
    """The artifact name for a reported path; None for one that is absolute, climbs out, or would
    land in the user's scope (``user:``)."""
    if not isinstance(path, str) or not path:
        return None
    norm = pathlib.PurePosixPath(path.replace("\\", "/"))
    if norm.is_absolute() or ".." in norm.parts or str(norm).startswith("user:"):
        return None
    return str(norm)


def _decoded(content: Any) -> Optional[bytes]:
    if not isinstance(content, str):
        return None
    try:
        return base64.b64decode(content, validate=True)
    except ValueError:
        return None
