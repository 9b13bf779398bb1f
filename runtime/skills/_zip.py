"""Loading a skill from a zip archive's bytes (how ADK fetches one from a remote store). An
archive is untrusted until loaded: its entries, its declared and its actual decompressed size are
bounded, and an entry whose path could leave the skill's folder refuses the whole archive."""

from __future__ import annotations

import io
import pathlib
import zipfile
from typing import Union

from runtime.skills import models
from runtime.skills._utils import SkillPathError, _build_scripts, _parse_skill_md_content, _validate_relative_resource_path

_MAX_ENTRIES = 2000
_MAX_UNCOMPRESSED_BYTES = 32 * 1024 * 1024
_READ_CHUNK_BYTES = 64 * 1024  # decompressed a step at a time, whatever a member really expands to


class _Archive:
    def __init__(self, archive: zipfile.ZipFile):
        self.zip = archive
        self.budget = _MAX_UNCOMPRESSED_BYTES  # bytes still allowed out of the archive

    def read(self, member: Union[str, zipfile.ZipInfo]) -> bytes:
        chunks = []
        try:
            with self.zip.open(member) as f:
                while chunk := f.read(_READ_CHUNK_BYTES):
                    self.budget -= len(chunk)
                    if self.budget < 0:
                        raise ValueError(
                            f"Skill archive is too large decompressed: it expands past the limit of "
                            f"{_MAX_UNCOMPRESSED_BYTES} bytes."
                        )
                    chunks.append(chunk)
        except zipfile.BadZipFile as error:
            raise ValueError(f"Skill archive is malformed: {error}") from error
        return b"".join(chunks)

    def folder(self, prefix: str) -> dict[str, Union[str, bytes]]:
        files: dict[str, Union[str, bytes]] = {}
        for info in self.zip.infolist():
            relative = info.filename[len(prefix) + 1 :]
            if info.is_dir() or not info.filename.startswith(f"{prefix}/") or not relative or "__pycache__" in info.filename:
                continue
            name = _validate_relative_resource_path(relative)
            if name in files:
                raise ValueError(f"Duplicate normalized path detected: {name!r}")
            data = self.read(info)
            try:
                files[name] = data.decode("utf-8")
            except UnicodeDecodeError:
                files[name] = data
        return files


def _load_skill_from_zip_bytes(zip_bytes: bytes) -> models.Skill:
    """The skill in the archive (SKILL.md at its root). FileNotFoundError without SKILL.md,
    ValueError when the archive is malformed, too big, or has a dangerous entry."""
    try:
        opened = zipfile.ZipFile(io.BytesIO(zip_bytes))
    except zipfile.BadZipFile as error:
        raise ValueError(f"Skill archive is malformed: {error}") from error
    with opened as z:
        entries = z.infolist()
        if len(entries) > _MAX_ENTRIES:
            raise ValueError(f"Skill archive has too many entries: {len(entries)} exceeds the limit of {_MAX_ENTRIES}.")
        declared = sum(info.file_size for info in entries)
        if declared > _MAX_UNCOMPRESSED_BYTES:
            raise ValueError(
                f"Skill archive is too large decompressed: {declared} bytes exceeds the limit of "
                f"{_MAX_UNCOMPRESSED_BYTES} bytes."
            )
        for info in entries:
            if info.is_dir() and pathlib.PurePosixPath(info.filename.replace("\\", "/")).as_posix() == ".":
                continue
            try:
                _validate_relative_resource_path(info.filename)
            except SkillPathError as error:
                raise SkillPathError(f"Dangerous zip entry ignored: {info.filename}") from error
        archive = _Archive(z)
        names = set(z.namelist())
        skill_md = next((name for name in ("SKILL.md", "skill.md") if name in names), None)
        if skill_md is None:
            raise FileNotFoundError("SKILL.md not found in zipped filesystem.")
        parsed, body = _parse_skill_md_content(archive.read(skill_md).decode("utf-8"))
        name = parsed.get("name")
        if not name:
            raise ValueError("SKILL.md frontmatter must contain 'name'")
        if not isinstance(name, str) or pathlib.Path(name).name != name:
            raise ValueError(f"Invalid skill name in SKILL.md: {name}")
        frontmatter = models.Frontmatter.model_validate(parsed)
        resources = models.Resources(
            references=archive.folder("references"),
            assets=archive.folder("assets"),
            scripts=_build_scripts(archive.folder("scripts")),
        )
        return models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)
