"""The benchmarks `chronicle bench` runs: one module per workload, side by side with google-adk or a floor."""
