"""Agents of many shapes, written against `google.adk`, whose model requests are compared
(`tools.parity.requests`): rich tool signatures, transfer trees, AgentTool, memory, artifacts,
output schemas, planners, instructions and callbacks that edit requests. Each module is an app as
`tools/parity/apps` describes them (`root_agent` or `app`, `TURNS`, optionally `INITIAL_STATE`);
a turn `{"add_session_to_memory": True}` puts the session so far into the memory service."""
