from . import agent  # noqa: F401  (adk eval and AgentEvaluator look for the `agent` module here)
