"""The artifact services' ADK contract, on every store (memory, SQLite, PostgreSQL) and on files.

Versions are events in the log, bytes are content-addressed blobs; these tests use real
stores and corrupt real rows and files.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest
from google.genai import types

from domain import InvalidArgumentError
from domain.events import EventActions
from runtime.artifacts import (
    ArtifactIntegrityError,
    FileArtifactService,
    InMemoryArtifactService,
    LogArtifactService,
    SqliteArtifactService,
    artifact_service_from_url,
)
from domain.artifact_log import ARTIFACT_TOPICS, ArtifactLog
from domain.artifact_names import ArtifactScope
from domain.artifact_versions import ArtifactDeleted, ArtifactSaved, VersionRecord, fold_all, fold_artifact_event
from runtime.sessions import LogSessionService, session_service_from_url
from runtime.stores import open_store
from tests.store_helpers import STORE_KINDS, fresh_store_url

APP, USER = "app", "u1"
ARTIFACT_KINDS = [*STORE_KINDS, "file"]


@pytest.fixture(params=ARTIFACT_KINDS)
def artifact_url(request, tmp_path) -> str:
    """A fresh artifact store of each kind (file:// is FileArtifactService)."""
    if request.param == "file":
        return f"file://{tmp_path}/artifacts"
    return fresh_store_url(request, request.param, tmp_path)


@pytest.fixture
async def service(artifact_url):
    svc = artifact_service_from_url(artifact_url)
    yield svc
    await svc.close()


def png(data: bytes) -> types.Part:
    return types.Part.from_bytes(data=data, mime_type="image/png")


async def save(svc, filename, part, session_id="s1", **kw):
    return await svc.save_artifact(app_name=APP, user_id=USER, session_id=session_id, filename=filename, artifact=part, **kw)


async def load(svc, filename, session_id="s1", version=None):
    return await svc.load_artifact(app_name=APP, user_id=USER, session_id=session_id, filename=filename, version=version)


def blob_count(svc) -> int:
    return svc.blobs.count()


# -- the API ---------------------------------------------------------------------------------


async def test_versions_start_at_zero_and_round_trip(service):
    assert await save(service, "report.txt", types.Part(text="draft")) == 0
    assert await save(service, "report.txt", types.Part(text="final")) == 1
    assert await save(service, "chart.png", png(b"\x89PNG...")) == 0
    assert (await load(service, "report.txt")).text == "final"
    assert (await load(service, "report.txt", version=0)).text == "draft"
    chart = await load(service, "chart.png")
    assert chart.inline_data.data == b"\x89PNG..." and chart.inline_data.mime_type == "image/png"
    assert await service.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="report.txt") == [0, 1]
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == ["chart.png", "report.txt"]


async def test_missing_artifacts_and_versions_are_none(service):
    assert await load(service, "nothing.txt") is None
    await save(service, "a.txt", types.Part(text="a"))
    assert await load(service, "a.txt", version=1) is None
    assert await service.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="nothing.txt") == []
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="empty") == []
    assert await service.get_artifact_version(app_name=APP, user_id=USER, session_id="s1", filename="a.txt", version=7) is None


async def test_session_files_are_private_and_user_files_are_shared(service):
    await save(service, "notes.txt", types.Part(text="s1 notes"), session_id="s1")
    await save(service, "user:profile.json", types.Part(text='{"name": "Ada"}'), session_id="s1")
    # another session of the same user sees the user: file, not the session file
    assert await load(service, "notes.txt", session_id="s2") is None
    assert (await load(service, "user:profile.json", session_id="s2")).text == '{"name": "Ada"}'
    assert await save(service, "user:profile.json", types.Part(text="v1"), session_id="s2") == 1
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s2") == ["user:profile.json"]
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == ["notes.txt", "user:profile.json"]
    # without a session: only the user's files
    assert await service.list_artifact_keys(app_name=APP, user_id=USER) == ["user:profile.json"]
    # other users and apps see nothing
    assert await service.load_artifact(app_name=APP, user_id="u2", session_id="s1", filename="user:profile.json") is None
    assert await service.list_artifact_keys(app_name="other", user_id=USER, session_id="s1") == []


async def test_delete_hides_every_version_and_numbering_goes_on(service):
    await save(service, "a.txt", types.Part(text="zero"))
    await save(service, "a.txt", types.Part(text="one"))
    await service.delete_artifact(app_name=APP, user_id=USER, session_id="s1", filename="a.txt")
    assert await load(service, "a.txt") is None and await load(service, "a.txt", version=0) is None
    assert await service.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="a.txt") == []
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == []
    await service.delete_artifact(app_name=APP, user_id=USER, session_id="s1", filename="a.txt")  # no-op
    # a version number never names two contents: the next save is 2, not 0
    assert await save(service, "a.txt", types.Part(text="two")) == 2
    assert await service.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="a.txt") == [2]


async def test_version_metadata(service):
    await save(service, "a.bin", png(b"abc"), custom_metadata={"source": "camera", "n": 1})
    meta = await service.get_artifact_version(app_name=APP, user_id=USER, session_id="s1", filename="a.bin")
    assert meta.version == 0 and meta.mime_type == "image/png" and meta.size == 3
    assert meta.custom_metadata == {"source": "camera", "n": 1}
    assert meta.sha256 == hashlib.sha256(b"abc").hexdigest()
    assert meta.canonical_uri == "artifact://apps/app/users/u1/sessions/s1/artifacts/a.bin/versions/0"
    listed = await service.list_artifact_versions(app_name=APP, user_id=USER, session_id="s1", filename="a.bin")
    assert [v.version for v in listed] == [0]


async def test_parts_given_as_dicts_are_accepted(service):
    assert await save(service, "d.txt", {"text": "from a dict"}) == 0
    assert (await load(service, "d.txt")).text == "from a dict"


# -- rewind support: exact earlier versions ---------------------------------------------------


async def test_earlier_versions_load_exactly_and_restore_without_copying(service):
    contents = [os.urandom(1000) for _ in range(3)]
    for data in contents:
        await save(service, "img.png", png(data))
    for version, data in enumerate(contents):
        assert (await load(service, "img.png", version=version)).inline_data.data == data
    blobs_before = blob_count(service)
    restored = await service.restore_artifact(app_name=APP, user_id=USER, session_id="s1", filename="img.png", version=0)
    assert restored == 3
    assert (await load(service, "img.png")).inline_data.data == contents[0]
    assert blob_count(service) == blobs_before  # the same blob, named twice
    # a deleted version can be restored too (nothing is ever deleted from the log)
    await service.delete_artifact(app_name=APP, user_id=USER, session_id="s1", filename="img.png")
    assert await service.restore_artifact(app_name=APP, user_id=USER, session_id="s1", filename="img.png", version=1) == 4
    assert (await load(service, "img.png")).inline_data.data == contents[1]
    with pytest.raises(InvalidArgumentError):
        await service.restore_artifact(app_name=APP, user_id=USER, session_id="s1", filename="img.png", version=99)


async def test_an_artifact_reference_part_records_the_referenced_version(service):
    # ADK's rewind saves a file_data part naming an earlier version's artifact:// URI
    await save(service, "a.txt", types.Part(text="first"))
    await save(service, "a.txt", types.Part(text="second"))
    meta = await service.get_artifact_version(app_name=APP, user_id=USER, session_id="s1", filename="a.txt", version=0)
    ref = types.Part(file_data=types.FileData(file_uri=meta.canonical_uri))
    assert await save(service, "a.txt", ref) == 2
    assert (await load(service, "a.txt")).text == "first"
    with pytest.raises(InvalidArgumentError):  # a reference may not leave the user's scope
        await service.save_artifact(
            app_name=APP, user_id="u2", session_id="s1", filename="a.txt", artifact=ref
        )


async def test_tool_context_save_puts_the_version_in_artifact_delta(service):
    from domain.session import Session
    from runtime.contexts import CallbackContext
    from runtime.invocation_context import InvocationContext

    session = Session(id="s1", app_name=APP, user_id=USER)
    ctx = InvocationContext(invocation_id="e-1", session=session, artifact_service=service)
    actions = EventActions()
    callback_context = CallbackContext(ctx, event_actions=actions)
    assert await callback_context.save_artifact("plan.md", types.Part(text="v0")) == 0
    assert await callback_context.save_artifact("plan.md", types.Part(text="v1")) == 1
    assert actions.artifact_delta == {"plan.md": 1}
    # what a rewind to before that event does: load the version the earlier delta named
    assert (await callback_context.load_artifact("plan.md", version=0)).text == "v0"
    assert await callback_context.list_artifacts() == ["plan.md"]


# -- concurrency -----------------------------------------------------------------------------


async def test_concurrent_saves_of_one_file_get_distinct_consecutive_versions(service):
    n = 40
    parts = [types.Part(text=f"writer {i}") for i in range(n)]
    versions = await asyncio.gather(*(save(service, "shared.txt", p) for p in parts))
    assert sorted(versions) == list(range(n))
    for version, i in zip(versions, range(n)):
        assert (await load(service, "shared.txt", version=version)).text == f"writer {i}"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_two_service_instances_racing_on_one_store_lose_no_version(kind, tmp_path, request):
    url = f"sqlite:///{tmp_path}/race.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    a, b = artifact_service_from_url(url), artifact_service_from_url(url)
    n = 25

    async def writer(svc, name):
        return [await save(svc, "user:race.txt", types.Part(text=f"{name}{i}")) for i in range(n)]

    # each service has its own cache and threads: they clash in the database and retry
    va, vb = await asyncio.gather(writer(a, "a"), writer(b, "b"))
    assert sorted(va + vb) == list(range(2 * n))
    texts = {(await load(a, "user:race.txt", version=v)).text for v in range(2 * n)}
    assert texts == {f"a{i}" for i in range(n)} | {f"b{i}" for i in range(n)}
    await a.close()
    await b.close()


async def test_another_process_saving_at_once_loses_no_version(tmp_path):
    url = f"sqlite:///{tmp_path}/procs.db"
    svc = artifact_service_from_url(url)
    await save(svc, "log.txt", types.Part(text="start"))
    child = textwrap.dedent(
        f"""
        import asyncio
        from google.genai import types
        from runtime.artifacts import artifact_service_from_url

        async def main():
            svc = artifact_service_from_url({url!r})
            for i in range(30):
                await svc.save_artifact(app_name="app", user_id="u1", session_id="s1", filename="log.txt",
                                        artifact=types.Part(text=f"child {{i}}"))
            await svc.close()

        asyncio.run(main())
        """
    )
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", child, stderr=subprocess.PIPE)
    mine = [await save(svc, "log.txt", types.Part(text=f"parent {i}")) for i in range(30)]
    _, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    versions = await svc.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="log.txt")
    assert versions == list(range(61)) and len(set(mine)) == 30
    await svc.close()


# -- content addressing ----------------------------------------------------------------------


async def test_identical_bytes_are_stored_once(service):
    data = os.urandom(4096)
    await save(service, "a.bin", png(data), session_id="s1")
    await save(service, "b.bin", png(data), session_id="s2")
    await save(service, "user:c.bin", png(data), session_id="s3")
    await save(service, "a.bin", png(data), session_id="s1")
    assert blob_count(service) == 1
    await save(service, "a.bin", png(data + b"!"))
    assert blob_count(service) == 2


async def test_the_blob_table_holds_each_content_once_in_sqlite(tmp_path):
    path = tmp_path / "dedup.db"
    svc = SqliteArtifactService(str(path))
    for session in ("s1", "s2", "s3"):
        await save(svc, "same.txt", types.Part(text="identical"), session_id=session)
    await svc.close()
    # the bytes live next to the store file, in chronicle.db-blobs (see SqliteBlobStore)
    blobs = sqlite3.connect(f"{path}-blobs")
    assert blobs.execute("SELECT sha256, size FROM chronicle_blobs").fetchall() == [
        (hashlib.sha256(b"identical").hexdigest(), 9)
    ]
    assert blobs.execute("SELECT data FROM chronicle_blob_data").fetchall() == [(b"identical",)]


async def test_events_record_hashes_never_bytes(tmp_path):
    path = tmp_path / "events.db"
    svc = SqliteArtifactService(str(path))
    secret = b"BYTES-THAT-MUST-NOT-BE-IN-AN-EVENT"
    await save(svc, "s.bin", png(secret))
    await svc.close()
    rows = sqlite3.connect(path).execute("SELECT topic, state FROM chronicle_events").fetchall()
    saved = [state for topic, state in rows if topic == ArtifactLog.Saved.TOPIC]
    assert len(saved) == 1 and secret not in saved[0]
    assert hashlib.sha256(secret).hexdigest().encode() in saved[0]


# -- hash check on load ----------------------------------------------------------------------


async def test_a_blob_corrupted_in_sqlite_is_refused_on_load(tmp_path):
    path = tmp_path / "corrupt.db"
    svc = SqliteArtifactService(str(path))
    await save(svc, "doc.txt", types.Part(text="the original"))
    with sqlite3.connect(f"{path}-blobs") as db:
        db.execute("UPDATE chronicle_blob_data SET data = ?", (b"the tampered",))
    with pytest.raises(ArtifactIntegrityError, match=r"doc.txt.*version 0.*do not match"):
        await load(svc, "doc.txt")
    with sqlite3.connect(f"{path}-blobs") as db:
        db.execute("DELETE FROM chronicle_blobs")
    with pytest.raises(ArtifactIntegrityError, match="missing"):
        await load(svc, "doc.txt")
    await svc.close()


async def test_a_blob_corrupted_in_postgres_is_refused_on_load(postgres_url):
    svc = artifact_service_from_url(postgres_url)
    await save(svc, "doc.txt", types.Part(text="the original"))
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("UPDATE chronicle_blobs SET data = %s", (b"the tampered",))
    with pytest.raises(ArtifactIntegrityError, match="do not match"):
        await load(svc, "doc.txt")
    await svc.close()


async def test_a_blob_file_corrupted_on_disk_is_refused_on_load(tmp_path):
    svc = FileArtifactService(tmp_path / "root")
    await save(svc, "doc.bin", png(b"original bytes"))
    sha = hashlib.sha256(b"original bytes").hexdigest()
    blob = tmp_path / "root" / "blobs" / sha[:2] / sha[2:]
    assert blob.read_bytes() == b"original bytes"
    blob.write_bytes(b"flipped bytes!")
    with pytest.raises(ArtifactIntegrityError, match="do not match"):
        await load(svc, "doc.bin")
    await svc.close()


# -- refusals --------------------------------------------------------------------------------

# Nested names ("docs/a.txt") are names, not paths (tests/test_artifact_names.py); these are not.
BAD_NAMES = ["", "   ", "../escape.txt", "..", "/etc/passwd", "dir\\file.txt", "user:", "user:../x", "user:/abs",
             "a\x00b", "tab\tname", "C:\\windows\\x", "C:rel", "a//b", "docs/", "./a", "a/../../b"]


@pytest.mark.parametrize("filename", BAD_NAMES)
async def test_path_like_and_empty_names_are_refused_and_nothing_is_written(service, filename, tmp_path):
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(InvalidArgumentError, match="Invalid artifact filename"):
        await save(service, filename, types.Part(text="x"))
    with pytest.raises(InvalidArgumentError):
        await load(service, filename)
    assert blob_count(service) == 0
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == []
    if isinstance(service, FileArtifactService):
        # nothing new anywhere under tmp_path, inside the root or outside it
        assert sorted(str(p) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize(
    "part",
    [types.Part(), types.Part(inline_data=types.Blob(mime_type="image/png")),
     types.Part(file_data=types.FileData(file_uri="gs://bucket/x.png"))],
    ids=["empty", "blob-without-bytes", "external-file"],
)
async def test_parts_with_neither_bytes_nor_text_are_refused(service, part):
    with pytest.raises(InvalidArgumentError, match="neither bytes nor text"):
        await save(service, "a.bin", part)
    assert blob_count(service) == 0
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == []


async def test_artifacts_over_the_size_limit_are_refused(tmp_path):
    svc = FileArtifactService(tmp_path / "root", max_artifact_bytes=1000)
    assert await save(svc, "ok.bin", png(b"x" * 1000)) == 0
    with pytest.raises(InvalidArgumentError, match="over this service's limit of 1,000 bytes"):
        await save(svc, "big.bin", png(b"x" * 1001))
    assert await svc.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == ["ok.bin"]
    assert blob_count(svc) == 1
    await svc.close()
    mem = InMemoryArtifactService(max_artifact_bytes=10)
    with pytest.raises(InvalidArgumentError):
        await save(mem, "t.txt", types.Part(text="eleven char"))


async def test_bad_ids_versions_and_metadata_are_refused(service):
    with pytest.raises(InvalidArgumentError):
        await service.save_artifact(app_name="../app", user_id=USER, session_id="s1", filename="a", artifact=types.Part(text="x"))
    with pytest.raises(InvalidArgumentError):
        await service.save_artifact(app_name=APP, user_id="u/../1", session_id="s1", filename="a", artifact=types.Part(text="x"))
    with pytest.raises(InvalidArgumentError):
        await load(service, "a", version=-1)
    with pytest.raises(InvalidArgumentError):
        await save(service, "a", types.Part(text="x"), custom_metadata={"f": object()})
    assert blob_count(service) == 0


# -- one store for sessions and artifacts; durability ------------------------------------------


async def test_sessions_and_artifacts_share_one_store(tmp_path):
    url = f"sqlite:///{tmp_path}/one.db"
    sessions = session_service_from_url(url)
    assert isinstance(sessions, LogSessionService)
    artifacts = LogArtifactService(sessions.store)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="s1")
    await save(artifacts, "a.txt", types.Part(text="in the same file"), session_id=session.id)
    await artifacts.close()  # does not close the shared store
    assert (await sessions.get_session(app_name=APP, user_id=USER, session_id="s1")) is not None
    assert (await load(artifacts, "a.txt")).text == "in the same file"
    await sessions.close()
    tables = {r[0] for r in sqlite3.connect(tmp_path / "one.db").execute("SELECT name FROM sqlite_master")}
    assert {"chronicle_events", "chronicle_sessions"} <= tables
    assert (tmp_path / "one.db-blobs").exists()  # the store's blob file, beside it


async def test_an_in_memory_sqlite_store_keeps_blobs_in_its_own_database():
    svc = artifact_service_from_url("sqlite:///:memory:")
    await save(svc, "a.bin", png(b"in memory"))
    await save(svc, "b.bin", png(b"in memory"))
    assert (await load(svc, "b.bin")).inline_data.data == b"in memory" and blob_count(svc) == 1
    await svc.close()


async def test_artifacts_survive_a_reopen(tmp_path):
    root = tmp_path / "files"
    svc = FileArtifactService(root)
    await save(svc, "keep.txt", types.Part(text="v0"))
    await save(svc, "keep.txt", types.Part(text="v1"))
    await svc.close()
    again = FileArtifactService(str(root))
    assert await again.list_versions(app_name=APP, user_id=USER, session_id="s1", filename="keep.txt") == [0, 1]
    assert (await load(again, "keep.txt", version=0)).text == "v0"
    await again.close()


# -- the version projection ------------------------------------------------------------------


def _record(name: str, version: int, sha: str = "0" * 64) -> VersionRecord:
    return VersionRecord(filename=name, version=version, sha256=sha, size=1, mime_type="text/plain")


def test_the_fold_numbers_versions_and_hides_deleted_ones():
    view = fold_all([ArtifactSaved(_record("a", 0)), ArtifactSaved(_record("a", 1)), ArtifactDeleted("a"),
                     ArtifactSaved(_record("a", 2)), ArtifactSaved(_record("b", 0))])
    assert [r.version for r in view["a"].live()] == [2] and view["a"].next_version == 3
    assert [r.version for r in view["b"].live()] == [0]
    with pytest.raises(ValueError, match="out of order"):
        fold_artifact_event(view, ArtifactSaved(_record("b", 5)))


async def test_the_version_list_rebuilt_from_stored_events_equals_the_live_one(store_url):
    svc = LogArtifactService(open_store(store_url), owns_store=True)
    for i in range(5):
        await save(svc, f"f{i % 2}.txt", types.Part(text=str(i)))
    await svc.delete_artifact(app_name=APP, user_id=USER, session_id="s1", filename="f0.txt")
    await save(svc, "f0.txt", types.Part(text="after"))
    scope = ArtifactScope(APP, USER, "s1")
    stored = svc.store.recorder.select_events(scope.log_id)
    assert {s.topic for s in stored} <= set(ARTIFACT_TOPICS)
    # refold the stored events through the pure fold only
    events = []
    for domain_event in map(svc.store.application.mapper.to_domain_event, stored):
        if isinstance(domain_event, ArtifactLog.Saved):
            fields = {k: getattr(domain_event, k) for k in VersionRecord.__dataclass_fields__}
            events.append(ArtifactSaved(VersionRecord(**fields)))
        elif isinstance(domain_event, ArtifactLog.Deleted):
            events.append(ArtifactDeleted(domain_event.filename, domain_event.deleted_time))
    rebuilt = fold_all(events)
    live = svc.store.application.repository.get(scope.log_id).view
    assert rebuilt == live
    assert [r.version for r in rebuilt["f0.txt"].live()] == [3]
    await svc.close()


def test_file_service_root_holds_everything(tmp_path):
    root = tmp_path / "root"
    FileArtifactService(root)
    assert {p.name for p in Path(root).iterdir()} <= {"artifacts.db", "artifacts.db-wal", "artifacts.db-shm", "blobs"}


async def test_a_rewind_restores_the_exact_earlier_versions(store_url):
    from domain import Event

    sessions = session_service_from_url(store_url)
    artifacts = LogArtifactService(sessions.store)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="s1")

    async def turn(invocation_id, files):
        delta = {name: await save(artifacts, name, types.Part(text=text)) for name, text in files.items()}
        await sessions.append_event(session, Event(author="model", invocation_id=invocation_id,
                                                   actions=EventActions(artifact_delta=delta)))
        return delta

    assert await turn("e-1", {"plan.md": "plan A"}) == {"plan.md": 0}
    assert await turn("e-2", {"plan.md": "plan B", "notes.txt": "scratch"}) == {"plan.md": 1, "notes.txt": 0}
    marker = await sessions.rewind_session(app_name=APP, user_id=USER, session_id="s1", rewind_before_invocation_id="e-2")
    assert marker.actions.artifact_delta == {"plan.md": 0}
    # the files the rewound events touched: back to the marker's versions, or gone
    touched = {"plan.md", "notes.txt"}
    restored = await artifacts.restore_artifacts(
        app_name=APP, user_id=USER, session_id="s1",
        versions={name: marker.actions.artifact_delta.get(name) for name in touched},
    )
    assert restored == {"plan.md": 2, "notes.txt": None}
    assert (await load(artifacts, "plan.md")).text == "plan A"
    assert await load(artifacts, "notes.txt") is None
    assert await artifacts.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == ["plan.md"]
    # restoring again changes nothing; the rewound versions stay loadable by number for audits
    assert await artifacts.restore_artifacts(app_name=APP, user_id=USER, session_id="s1", versions={"plan.md": 0}) == {}
    assert (await load(artifacts, "plan.md", version=1)).text == "plan B"
    await sessions.close()
