"""Artifact names as google-adk takes them (nested, ``user:``), version metadata, and one error
class for bad input (ADK's InputValidationError is Chronicle's InvalidArgumentError), on every
store: memory, SQLite, PostgreSQL and files."""

from __future__ import annotations

import json
import os
import pickle
import posixpath
import re
import time

import pytest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

import domain
from domain.artifact_log import ArtifactLog
from domain.artifact_names import ArtifactScope, check_filename
from domain.artifact_versions import VersionRecord
from domain.errors import ChronicleError, InvalidAnswerError, InvalidArgumentError
from domain.events import EventActions
from runtime.artifacts import ArtifactVersion, FileArtifactService, LogArtifactService, artifact_service_from_url
from runtime.errors.input_validation_error import InputValidationError
from runtime.operations.export import store_jsonl_lines
from runtime.stores import open_store
from tests.test_artifacts import APP, USER, artifact_url, blob_count, load, png, save, service  # noqa: F401

# Names ADK accepts and Chronicle keeps as names. "docs" is also the parent of "docs/…": deleting
# one must not touch the other. "metadata.json" and "versions" are reserved only by the layout of
# ADK's file service; Chronicle has no layout.
NESTED = ["docs", "docs/report.txt", "docs/2026/q1 summary.md", "x..y", "a/versions/3", "metadata.json"]


# -- nested names ----------------------------------------------------------------------------


async def test_nested_names_are_names_and_never_touch_each_other(service):
    for name in NESTED:
        assert await save(service, name, types.Part(text=f"text of {name}")) == 0
    assert await save(service, "user:shared/diagram.png", png(b"diagram")) == 0
    keys = await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1")
    assert keys == sorted(NESTED + ["user:shared/diagram.png"])
    for name in NESTED:
        assert (await load(service, name)).text == f"text of {name}"
    await service.delete_artifact(app_name=APP, user_id=USER, session_id="s1", filename="docs")
    assert await load(service, "docs") is None
    assert (await load(service, "docs/report.txt")).text == "text of docs/report.txt"
    # the user's nested file: listed (with its prefix) and loaded from another session
    assert await service.list_artifact_keys(app_name=APP, user_id=USER, session_id="s2") == ["user:shared/diagram.png"]
    assert (await load(service, "user:shared/diagram.png", session_id="s2")).inline_data.data == b"diagram"
    # without a session only the user's files are listed, as ADK lists them
    assert await service.list_artifact_keys(app_name=APP, user_id=USER) == ["user:shared/diagram.png"]


async def test_a_file_saved_without_a_session_is_the_users_under_either_name(service):
    # As in ADK's file service: "x" saved without a session and "user:x" are one file.
    user = dict(app_name=APP, user_id=USER)
    assert await service.save_artifact(**user, filename="brand/logo.png", artifact=png(b"v0")) == 0
    assert await service.list_artifact_keys(**user) == ["user:brand/logo.png"]
    assert await service.list_artifact_keys(**user, session_id="s1") == ["user:brand/logo.png"]
    assert (await load(service, "user:brand/logo.png", session_id="s1")).inline_data.data == b"v0"
    assert await save(service, "user:brand/logo.png", png(b"v1"), session_id="s1") == 1
    assert (await service.load_artifact(**user, filename="brand/logo.png")).inline_data.data == b"v1"
    assert await service.list_versions(**user, filename="user:brand/logo.png") == [0, 1]
    assert await load(service, "brand/logo.png", session_id="s1") is None  # in a session, a bare name is the session's
    await service.delete_artifact(**user, filename="brand/logo.png")
    assert await service.list_artifact_keys(**user, session_id="s1") == []


async def test_a_user_file_an_earlier_chronicle_kept_under_its_bare_name_still_answers(store_url):
    from runtime.stores.blobs import store_bytes

    svc = LogArtifactService(open_store(store_url), owns_store=True)
    scope = ArtifactScope(APP, USER, None)
    old = ArtifactLog.start(scope)  # what saving "notes.md" without a session used to record
    old.save_version(VersionRecord(filename="notes.md", version=0, sha256=store_bytes(svc.blobs, b"old"), size=3,
                                   mime_type="text/plain", kind="text", custom_metadata={"from": "before"}))
    svc.store.application.save(old)
    for session_id, name in ((None, "notes.md"), ("s1", "user:notes.md")):
        assert (await load(svc, name, session_id=session_id)).text == "old"
    assert await save(svc, "user:notes.md", types.Part(text="new"), session_id="s1") == 1  # the same file goes on
    assert await svc.list_artifact_keys(app_name=APP, user_id=USER) == ["notes.md"]
    versions = await svc.list_artifact_versions(app_name=APP, user_id=USER, filename="notes.md")
    assert [(v.version, v.custom_metadata) for v in versions] == [(0, {"from": "before"}), (1, {})]
    await svc.close()


async def test_a_nested_names_uri_reads_back_as_a_reference_to_it(service):
    user = "team/ann"  # a user id with "/", as ADK allows
    kw = dict(app_name=APP, user_id=user, session_id="s1")
    await service.save_artifact(**kw, filename="docs/versions/1.txt", artifact=types.Part(text="one"))
    await service.save_artifact(**kw, filename="docs/versions/1.txt", artifact=types.Part(text="two"))
    meta = await service.get_artifact_version(**kw, filename="docs/versions/1.txt", version=0)
    assert meta.canonical_uri == "artifact://apps/app/users/team/ann/sessions/s1/artifacts/docs/versions/1.txt/versions/0"
    ref = types.Part(file_data=types.FileData(file_uri=meta.canonical_uri))
    assert await service.save_artifact(**kw, filename="copy/of.txt", artifact=ref) == 0
    assert (await service.load_artifact(**kw, filename="copy/of.txt")).text == "one"
    # a user file may take its content from the caller's session, as in ADK, and keeps it for every session
    assert await service.save_artifact(**kw, filename="user:kept/one.txt", artifact=ref) == 0
    assert (await service.load_artifact(**{**kw, "session_id": "s2"}, filename="user:kept/one.txt")).text == "one"
    await service.save_artifact(**kw, filename="user:brand/logo.png", artifact=png(b"logo"))
    logo = await service.get_artifact_version(**kw, filename="user:brand/logo.png")
    assert logo.canonical_uri == "artifact://apps/app/users/team/ann/artifacts/user:brand/logo.png/versions/0"
    logo_ref = types.Part(file_data=types.FileData(file_uri=logo.canonical_uri))
    assert await service.save_artifact(**kw, filename="logo-copy.png", artifact=logo_ref) == 0
    assert (await service.load_artifact(**kw, filename="logo-copy.png")).inline_data.data == b"logo"
    # user "team" is a prefix of "team/ann" but not its owner: the reference is refused
    with pytest.raises(InputValidationError, match="points outside"):
        await service.save_artifact(app_name=APP, user_id="team", session_id="s1", filename="x", artifact=logo_ref)
    with pytest.raises(InputValidationError, match="another session"):
        await service.save_artifact(**{**kw, "session_id": "s2"}, filename="x", artifact=ref)


async def test_the_file_store_keeps_every_name_out_of_the_file_system(tmp_path):
    root = tmp_path / "root"
    svc = FileArtifactService(root)
    for name in NESTED + ["user:shared/diagram.png", "..data", "con", "a b/c d"]:
        await save(svc, name, types.Part(text=name))
    for hostile in ["../../outside.txt", "/tmp/abs.txt", "user:../../x", "a/../../../x", "C:\\x", "a\x00b", "\\\\host\\s"]:
        with pytest.raises(InputValidationError):
            await save(svc, hostile, types.Part(text="no"))
    await svc.close()
    written = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    # bytes are named by their hash, versions live in the log: no name ever became a path
    assert all(re.fullmatch(r"root/(artifacts\.db(-wal|-shm)?|blobs/[0-9a-f]{2}/[0-9a-f]{62})", p) for p in written), written
    reopened = FileArtifactService(root)
    assert (await load(reopened, "docs/2026/q1 summary.md")).text == "docs/2026/q1 summary.md"
    await reopened.close()


# Names built from the pieces that make paths escape, with and without the user: prefix.
_PIECES = st.sampled_from(["a", "b c", "x..y", ".", "..", "", "\\", "C:", "\x00", "\t", " ", "é", "user:", "~"])
_NAMES = st.builds(
    lambda prefix, parts, sep: prefix + sep.join(parts),
    st.sampled_from(["", "user:", "/"]), st.lists(_PIECES, min_size=1, max_size=5), st.sampled_from(["/", "\\", ""]),
)


@settings(max_examples=400, deadline=None)
@given(name=st.one_of(_NAMES, st.text(max_size=40)))
def test_a_name_is_accepted_only_if_it_cannot_leave_its_directory(name):
    try:
        assert check_filename(name) is name
    except InputValidationError as e:
        assert "Invalid artifact filename" in str(e)
        return
    bare = name.removeprefix("user:")
    assert "\x00" not in bare and "\\" not in bare and not bare.startswith("/")
    assert not set(bare.split("/")) & {"", ".", ".."}
    # joined under a directory, it stays there, as itself
    assert posixpath.normpath(posixpath.join("/root", bare)) == "/root/" + bare
    # and its URI reads back as exactly that name and version, in a session and for the user
    for scope in (ArtifactScope("app", "team/ann", "s1"), ArtifactScope("app", "team/ann", None)):
        assert scope.reference(scope.uri(name, 7)) == (scope, name, 7)


# -- one answer for bad input, on every store --------------------------------------------------


def _bad_calls():
    part = types.Part(text="x")
    kw = dict(app_name=APP, user_id=USER, session_id="s1")
    other_user = "artifact://apps/app/users/u2/sessions/s1/artifacts/a/versions/0"
    return {
        "name ..": lambda s: s.save_artifact(**kw, filename="a/../b", artifact=part),
        "name NUL": lambda s: s.load_artifact(**kw, filename="a\x00"),
        "name absolute": lambda s: s.delete_artifact(**kw, filename="/etc/passwd"),
        "name not str": lambda s: s.list_versions(**kw, filename=None),
        "app": lambda s: s.save_artifact(**{**kw, "app_name": "../app"}, filename="a", artifact=part),
        "user": lambda s: s.list_artifact_keys(app_name=APP, user_id="u/../x", session_id="s1"),
        "session": lambda s: s.save_artifact(**{**kw, "session_id": "../s"}, filename="a", artifact=part),
        "version -1": lambda s: s.load_artifact(**kw, filename="a", version=-1),
        "version str": lambda s: s.get_artifact_version(**kw, filename="a", version="1"),
        "version bool": lambda s: s.get_artifact_version(**kw, filename="a", version=True),
        "metadata not JSON": lambda s: s.save_artifact(**kw, filename="a", artifact=part, custom_metadata={"f": object()}),
        "metadata not dict": lambda s: s.save_artifact(**kw, filename="a", artifact=part, custom_metadata=["x"]),
        "metadata int key": lambda s: s.save_artifact(**kw, filename="a", artifact=part, custom_metadata={"n": {1: 2}}),
        "metadata NaN": lambda s: s.save_artifact(**kw, filename="a", artifact=part, custom_metadata={"x": float("nan")}),
        "not a Part": lambda s: s.save_artifact(**kw, filename="a", artifact=b"raw"),
        "reference elsewhere": lambda s: s.save_artifact(
            **kw, filename="a", artifact=types.Part(file_data=types.FileData(file_uri=other_user))),
        "reference missing": lambda s: s.save_artifact(
            **kw, filename="a", artifact=types.Part(file_data=types.FileData(
                file_uri="artifact://apps/app/users/u1/sessions/s1/artifacts/gone/versions/0"))),
        "restore missing": lambda s: s.restore_artifact(**kw, filename="a", version=99),
    }


async def test_every_store_gives_the_same_typed_answer_to_bad_input_and_writes_nothing(postgres_url, tmp_path):
    urls = {"memory": "memory://", "sqlite": f"sqlite:///{tmp_path}/a.db", "postgres": postgres_url,
            "file": f"file://{tmp_path}/files"}
    answers = {}
    for kind, url in urls.items():
        svc = artifact_service_from_url(url)
        answers[kind] = {}
        for what, bad in _bad_calls().items():
            with pytest.raises(InputValidationError) as caught:
                await bad(svc)
            answers[kind][what] = (type(caught.value), str(caught.value))
        assert blob_count(svc) == 0
        assert await svc.list_artifact_keys(app_name=APP, user_id=USER, session_id="s1") == []
        await svc.close()
    assert answers["sqlite"] == answers["memory"]
    assert answers["postgres"] == answers["memory"]
    assert answers["file"] == answers["memory"]


def test_adks_input_validation_error_is_chronicles_invalid_argument_error():
    from runtime import errors

    assert InputValidationError is InvalidArgumentError is errors.InputValidationError is domain.InputValidationError
    assert issubclass(InputValidationError, ValueError) and issubclass(InputValidationError, ChronicleError)
    assert InputValidationError.__name__ == "InputValidationError"  # what an error event's error_code says
    assert InputValidationError().message == "Invalid input."  # ADK's default and attribute
    assert 0 < ArtifactVersion(version=0, canonical_uri="x").create_time <= time.time()  # ADK's default: now
    error = InputValidationError("bad name")
    assert error.message == str(error) == "bad name"
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is InputValidationError and copy.message == "bad name"
    assert issubclass(InvalidAnswerError, InputValidationError)
    with pytest.raises(InputValidationError):
        domain.validation.check_ids("../app", USER)
    try:  # code written for ADK catches Chronicle's refusals as the ValueError they are
        check_filename("../x")
    except ValueError as e:
        assert isinstance(e, InvalidArgumentError)


# -- version metadata (ADK 2.13's ArtifactVersion) ---------------------------------------------


async def test_version_metadata_is_adks_artifact_version(service):
    kw = dict(app_name=APP, user_id=USER, session_id="s1", filename="docs/scan.png")
    given_metadata = {"source": "camera", "tags": ["a", "b"], "exif": {"iso": 200}}
    before = time.time()
    await service.save_artifact(**kw, artifact=png(b"v0"), custom_metadata=given_metadata)
    given_metadata["tags"].append("changed after the save")
    await service.save_artifact(**kw, artifact=types.Part(text="v1"))
    after = time.time()
    versions = await service.list_artifact_versions(**kw)
    assert [v.version for v in versions] == [0, 1]
    assert [v.custom_metadata for v in versions] == [{"source": "camera", "tags": ["a", "b"], "exif": {"iso": 200}}, {}]
    assert [v.mime_type for v in versions] == ["image/png", "text/plain"]
    assert before <= versions[0].create_time <= versions[1].create_time <= after
    assert versions[1].canonical_uri == "artifact://apps/app/users/u1/sessions/s1/artifacts/docs/scan.png/versions/1"
    versions[0].custom_metadata["source"] = "edited by a caller"
    assert (await service.get_artifact_version(**kw, version=0)).custom_metadata["source"] == "camera"
    newest = await service.get_artifact_version(**kw)
    assert newest.version == 1 and newest.model_dump(by_alias=True).keys() >= {
        "version", "canonicalUri", "customMetadata", "createTime", "mimeType"}
    assert await service.get_artifact_version(**kw, version=2) is None
    assert await service.get_artifact_version(**{**kw, "filename": "none.txt"}) is None
    assert await service.list_artifact_versions(**{**kw, "filename": "none.txt"}) == []
    # a restore brings the version back as it was, metadata included
    assert await service.restore_artifact(**kw, version=0) == 2
    assert (await service.get_artifact_version(**kw)).custom_metadata["exif"] == {"iso": 200}
    await service.delete_artifact(**kw)
    assert await service.list_artifact_versions(**kw) == [] and await service.get_artifact_version(**kw) is None


async def test_metadata_is_recorded_in_the_artifact_log_and_exported(store_url):
    svc = LogArtifactService(open_store(store_url), owns_store=True)
    await save(svc, "user:notes/a.md", types.Part(text="a"), custom_metadata={"reviewed": True})
    scope = ArtifactScope(APP, USER, None)
    [created, saved] = svc.store.recorder.select_events(scope.log_id)
    assert saved.topic == ArtifactLog.Saved.TOPIC
    payload = json.loads(saved.state)
    assert payload["filename"] == "user:notes/a.md" and payload["custom_metadata"] == {"reviewed": True}
    exported = [json.loads(line) for line in store_jsonl_lines(svc.store)]
    [line] = [e for e in exported if e["topic"] == ArtifactLog.Saved.TOPIC]
    assert line["payload"]["custom_metadata"] == {"reviewed": True}
    await svc.close()


async def test_a_tool_reads_version_metadata_through_its_context(store_url):
    from domain.session import Session
    from runtime.contexts import CallbackContext
    from runtime.invocation_context import InvocationContext

    svc = artifact_service_from_url(store_url)
    ctx = InvocationContext(invocation_id="e-1", session=Session(id="s1", app_name=APP, user_id=USER), artifact_service=svc)
    context = CallbackContext(ctx, event_actions=EventActions())
    assert await context.save_artifact("out/plan.md", types.Part(text="p"), custom_metadata={"step": 1}) == 0
    assert context.actions.artifact_delta == {"out/plan.md": 0}
    info = await context.get_artifact_version("out/plan.md")
    assert (info.version, info.custom_metadata, info.mime_type) == (0, {"step": 1}, "text/plain")
    assert await context.get_artifact_version("out/plan.md", version=5) is None
    await svc.close()
