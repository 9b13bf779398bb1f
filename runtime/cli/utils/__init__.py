"""google-adk 2.13's `cli.utils` path (logging set-up that sample agents import)."""
