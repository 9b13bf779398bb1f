"""ADK-idiom apps, written against `google.adk` exactly as an ADK user would write them.

Each module defines `root_agent` (or `app`), `TURNS` and optionally `INITIAL_STATE`. A turn is a
user's text or a whole `types.Content` (an image, a file), `{"confirm": bool}` (answer the pending
tool confirmation), `{"respond": {...}}` (answer the pending long-running call with that result),
`{"rewind_before": n}` or `{"add_session_to_memory": True}` (the session so far into memory).
"""
