"""Store-wide operations, as a Python API the `chronicle` command and the server call: audit
(verify every chain), export, a session's history with its rewinds, import from google-adk, and purge."""
