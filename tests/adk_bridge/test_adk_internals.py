"""What the bridge relies on inside google-adk, pinned at 2.13.0 (pyproject's `adk` extra): recheck
these on an upgrade."""

from __future__ import annotations

from importlib.metadata import version

from google.adk.artifacts import artifact_util
from google.adk.sessions.session import Session
from google.genai import types


def test_google_adk_is_the_pinned_release():
    assert version("google-adk") == "2.13.0"


def test_the_stale_session_marker_is_a_private_attribute_of_session():
    # The bridge keeps the log version an ADK Session reflects in ADK's own marker.
    session = Session(id="s", app_name="a", user_id="u")
    assert session._storage_update_marker is None
    session._storage_update_marker = "7"
    assert session.model_copy(deep=True)._storage_update_marker == "7"
    assert "_storage_update_marker" not in session.model_dump()


def test_the_rewind_tombstone_is_an_empty_octet_stream():
    # ADK's rewind saves it as a file's new version; the bridge's artifact service loads it as absent.
    tombstone = artifact_util._new_rewind_tombstone()
    assert artifact_util._is_rewind_tombstone(tombstone)
    assert tombstone == types.Part(inline_data=types.Blob(mime_type="application/octet-stream", data=b""))
    assert not artifact_util._is_rewind_tombstone(types.Part(text=""))
