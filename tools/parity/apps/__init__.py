"""ADK-idiom apps, written against `google.adk` exactly as an ADK user would write them.

Each module defines `root_agent` (or `app`), `TURNS` and optionally `INITIAL_STATE`. A turn is a
user's text, `{"confirm": bool}` (answer the pending tool confirmation), or
`{"respond": {...}}` (answer the pending long-running call with that result).
"""
