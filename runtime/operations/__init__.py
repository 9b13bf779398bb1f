"""Store-wide operations, as a Python API the `chronicle` command calls: audit (verify every chain),
export, import from google-adk, and purge."""
