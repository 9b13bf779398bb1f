"""google-adk 2.13's `cli` package path; Chronicle's command line is the top-level `tools.cli`."""
