"""Store-wide operations, as a Python API the `chronicle` command calls: audit (verify every chain),
seal (signed checkpoints, checking a store against them, inclusion proofs), export, import from
google-adk, and purge."""
