"""Bad ids and artifact references are refused in google-adk 2.13's words (issue 28): the same error
type (InputValidationError, a ValueError) and ADK's sentence first, on every store; Chronicle's own,
stricter rule follows it. The ADK side runs 2.13's InMemoryArtifactService in its own environment
(`.venv-adk`, or CHRONICLE_ADK_PYTHON; CI sets CHRONICLE_REQUIRE_ADK=1, so a missing one fails)."""

from __future__ import annotations

import json
import subprocess

import pytest
from google.genai import types

from tests.adk_env import ADK_PYTHON, adk_python_or_skip
from runtime.errors.input_validation_error import InputValidationError
from runtime.sessions import session_service_from_url
from tests.test_artifacts import artifact_url, service  # noqa: F401 (fixtures: every artifact store)


# (field, bad value): each refused by 2.13 with its own sentence.
BAD_IDS = [
    (field, value)
    for field in ("app_name", "user_id", "session_id")
    for value in ("../escape", "foo/../../bar", "..", ".", "null\x00byte", "", " ", "/etc/passwd",
                  "\\leading\\backslash", "C:evil", "a/users/b")
]
CALLS = ["save_artifact", "load_artifact", "delete_artifact", "list_artifact_keys", "list_versions"]
GOOD = {"app_name": "myapp", "user_id": "user123", "session_id": "sess123"}

# Filenames 2.13's FileArtifactService refuses (its in-memory service takes any name).
BAD_FILENAMES = ["/etc/passwd", "C:evil.txt", "\\\\server\\share.txt", "../up.txt", "docs/../../up.txt",
                 "user:../up.txt", "a\\..\\b.txt", " /padded.txt"]

ADK_SCRIPT = r"""
import asyncio, json, sys, tempfile
from google.adk.artifacts.file_artifact_service import FileArtifactService
from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from google.genai import types

async def main(cases):
    out = []
    for call, kwargs in cases:
        service = (FileArtifactService(root_dir=tempfile.mkdtemp()) if kwargs.pop("file", False)
                   else InMemoryArtifactService())
        if call == "save_artifact":
            kwargs["artifact"] = types.Part(text="x")
        try:
            await getattr(service, call)(**kwargs)
            out.append(None)
        except Exception as error:
            out.append([type(error).__name__, str(error)])
    print(json.dumps(out))

asyncio.run(main(json.loads(sys.stdin.read())))
"""


def call_kwargs(call: str, field: str, value: str) -> dict:
    kwargs = {**GOOD, field: value}
    if call != "list_artifact_keys":
        # a user: file where the session is not the bad field, as ADK's tests do (ADK's in-memory
        # service checks a session only for session files)
        kwargs["filename"] = "safe.txt" if field == "session_id" else "user:safe.txt"
    return kwargs


@pytest.fixture(scope="module")
def adk_messages() -> dict:
    adk_python_or_skip()
    cases = [(call, call_kwargs(call, field, value)) for call in CALLS for field, value in BAD_IDS]
    cases += [("save_artifact", {**GOOD, "filename": name, "file": True}) for name in BAD_FILENAMES]
    done = subprocess.run([ADK_PYTHON, "-c", ADK_SCRIPT], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    keys = [(call, field, value) for call in CALLS for field, value in BAD_IDS]
    keys += [("save_artifact", "filename", name) for name in BAD_FILENAMES]
    return dict(zip(keys, answers))


async def test_bad_ids_and_filenames_are_refused_with_adks_type_and_sentence_on_every_store(service, adk_messages):
    for (call, field, value), adk in adk_messages.items():
        assert adk is not None and adk[0] == "InputValidationError", (call, field, value, adk)
        kwargs = {**GOOD, "filename": value} if field == "filename" else call_kwargs(call, field, value)
        if call == "save_artifact":
            kwargs["artifact"] = types.Part(text="x")
        with pytest.raises(InputValidationError) as refused:
            await getattr(service, call)(**kwargs)
        assert str(refused.value).startswith(adk[1]), (call, field, value)
    assert await service.list_artifact_keys(**GOOD) == []  # nothing half-written


async def test_session_calls_refuse_path_like_ids_with_the_same_sentence(store_url):
    sessions = session_service_from_url(store_url)
    try:
        for field, value, sentence in [
            ("app_name", "../escape", "app_name '../escape' must not contain traversal segments."),
            ("user_id", "/etc/passwd", "user_id '/etc/passwd' must not be an absolute path or start with a slash."),
            ("session_id", "", "session_id must not be empty."),
        ]:
            with pytest.raises(InputValidationError) as refused:
                await sessions.create_session(**{**GOOD, field: value})
            assert str(refused.value).startswith(sentence)
            assert "Invalid" in str(refused.value)  # Chronicle's advice follows ADK's sentence
        # an id 2.13 takes but Chronicle's stricter rule does not: Chronicle's words alone
        with pytest.raises(InputValidationError, match=r"^Invalid session id 'a b'"):
            await sessions.create_session(**{**GOOD, "session_id": "a b"})
        assert (await sessions.list_sessions(app_name="myapp", user_id="user123")).sessions == []
    finally:
        await sessions.close()


async def test_references_outside_the_scope_are_refused_in_adks_words(service):
    await service.save_artifact(app_name="app0", user_id="victim", filename="user:secret.txt",
                                artifact=types.Part(text="secret"))
    elsewhere = types.Part(file_data=types.FileData(
        file_uri="artifact://apps/app0/users/victim/artifacts/user:secret.txt/versions/0", mime_type="text/plain"))
    with pytest.raises(InputValidationError, match=r"^Artifact references must stay within the same app and user scope"):
        await service.save_artifact(app_name="app0", user_id="attacker", session_id="s1", filename="ref.txt",
                                    artifact=elsewhere)
    other_session = types.Part(file_data=types.FileData(
        file_uri="artifact://apps/app0/users/attacker/sessions/s2/artifacts/a.txt/versions/0", mime_type="text/plain"))
    with pytest.raises(InputValidationError,
                       match=r"^Session-scoped artifact references must stay within the same session scope"):
        await service.save_artifact(app_name="app0", user_id="attacker", session_id="s1", filename="ref.txt",
                                    artifact=other_session)
    assert await service.list_artifact_keys(app_name="app0", user_id="attacker", session_id="s1") == []


def test_run_config_checks_as_google_adk_does():
    import sys

    from runtime.agents.run_config import RunConfig

    with pytest.raises(ValueError, match=rf"max_llm_calls should be less than {sys.maxsize}\."):
        RunConfig(max_llm_calls=sys.maxsize)  # pydantic's ValidationError around it, as on 2.13
    with pytest.raises(InputValidationError, match=rf"^max_llm_calls should be less than {sys.maxsize}\.$"):
        RunConfig.validate_max_llm_calls(sys.maxsize)
    assert RunConfig(response_modalities=["audio"]).response_modalities == [types.Modality.AUDIO]
    assert RunConfig().output_audio_transcription is not RunConfig().output_audio_transcription
