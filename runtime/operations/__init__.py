"""Store-wide operations, as a Python API the `chronicle` command and the server call: audit
(verify every chain), seal (signed checkpoints, checking a store against them, inclusion proofs),
export, a session's history with its rewinds, import from google-adk, and purge."""
