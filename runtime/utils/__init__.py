"""Helpers at google-adk 2.13's `utils` path that ADK code and its test helpers import."""
