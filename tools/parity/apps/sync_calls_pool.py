"""The same app with `RunConfig.tool_thread_pool_config`: the sync tool runs on the pool's thread,
the callback still on the loop (google-adk 2.13)."""

from tools.parity.apps.sync_calls import TURNS, root_agent  # noqa: F401

RUN_CONFIG = {"tool_thread_pool_config": {"max_workers": 2}}
