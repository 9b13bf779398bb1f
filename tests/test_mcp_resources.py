"""MCP resources and prompts in an agent, against the real MCP test server (tests/mcp_server.py)
over stdio and streamable HTTP: LoadMcpResourceTool and McpInstructionProvider."""

from __future__ import annotations

import pytest
from google.genai import types

from runtime import LlmAgent, ScriptedLlm
from runtime.agents.mcp_instruction_provider import McpInstructionProvider
from runtime.tools import McpToolset
from runtime.tools.load_mcp_resource_tool import LoadMcpResourceTool
from tests.rt_helpers import new_runner, send, texts
from tests.test_mcp_toolset import connection, http_server_url, sse_server_url  # noqa: F401 - fixtures, used by name


async def test_the_model_loads_resources_for_one_request(connection):
    toolset = McpToolset(connection_params=connection)  # its resources only: its tools are not the agent's
    model = ScriptedLlm([ScriptedLlm.call("load_mcp_resource", resource_names=["menu", "logo", "missing"]),
                         "Tomato soup today.", "Anything else?"])
    runner = await new_runner(LlmAgent(name="waiter", model=model, tools=[LoadMcpResourceTool(toolset)]))
    try:
        assert texts(await send(runner, "What is on the menu?")) == ["Tomato soup today."]
        await send(runner, "thanks")
    finally:
        await toolset.close()

    first, second, third = model.requests
    # Every request lists the server's resources in the instruction, as google-adk words it.
    assert 'You have a list of MCP resources:\n["menu", "logo"]' in first.config.system_instruction
    assert [d.name for t in first.config.tools for d in t.function_declarations] == ["load_mcp_resource"]
    # After the call, the next request carries each resource's contents (an unknown name is skipped).
    loaded = second.contents[-2:]
    assert [c.role for c in loaded] == ["user", "user"]
    assert loaded[0].parts[0].text == "Resource menu is:"
    assert loaded[0].parts[1].text == "Soup of the day: tomato."
    assert loaded[1].parts[0].text == "Resource logo is:"
    assert loaded[1].parts[1].inline_data == types.Blob(data=b"\x89PNG logo bytes", mime_type="image/png")
    # Only for that request: the conversation does not keep them.
    assert not any(p.text and p.text.startswith("Resource ") for c in third.contents for p in c.parts or [])
    answer = second.contents[-3].parts[0].function_response
    assert answer.response["resource_names"] == ["menu", "logo", "missing"]


async def test_an_unreachable_server_leaves_the_agent_working():
    from runtime.tools import StreamableHTTPConnectionParams

    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url="http://127.0.0.1:9/mcp", timeout=1))
    model = ScriptedLlm(["Hello."])
    runner = await new_runner(LlmAgent(name="waiter", model=model, tools=[LoadMcpResourceTool(toolset)]))
    assert texts(await send(runner, "hi")) == ["Hello."]
    assert "MCP resources" not in (model.requests[0].config.system_instruction or "")


async def test_the_instruction_comes_from_an_mcp_prompt_filled_from_state(connection):
    provider = McpInstructionProvider(connection, "waiter")
    model = ScriptedLlm(["Welcome!"])
    runner = await new_runner(LlmAgent(name="waiter", model=model, instruction=provider),
                              state={"shop": "Chez Ada", "other": "ignored"})
    try:
        assert texts(await send(runner, "hello")) == ["Welcome!"]
    finally:
        await provider.close()
    assert model.requests[0].config.system_instruction.startswith(
        "You are the waiter of Chez Ada. Answer from the menu.")


async def test_an_unknown_prompt_is_a_clear_error(connection):
    provider = McpInstructionProvider(connection, "no_such_prompt")
    runner = await new_runner(LlmAgent(name="waiter", model=ScriptedLlm(["x"]), instruction=provider))
    try:
        with pytest.raises(Exception, match="no_such_prompt|Unknown prompt"):
            await send(runner, "hello")
    finally:
        await provider.close()
