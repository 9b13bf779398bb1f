"""`chronicle parity`: ADK-idiom apps run under google-adk 2.13 and, imports rewritten, under Chronicle.

Each app in `tools/parity/apps/` is written against `google.adk`, with a deterministic rule-based
model. `transcript.py` runs one app in the current interpreter and prints its transcript as JSON;
`check.py` runs every app on both sides (google-adk in its own environment) and compares.
"""
