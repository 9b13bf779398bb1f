"""Where an agent's events sit in the agent tree: `node_info.path`, as google-adk 2.13 sets it.

2.13 runs a root LlmAgent as a node (`root@1`), and each agent it hands the conversation to as a
node below it (`root@1/child@1`, at the agent's place in the tree whatever the route taken). An
agent that a Sequential, Parallel or Loop agent runs is no node of its own: its events carry the
path of that agent. Under any other root (a SequentialAgent, say) 2.13 sets no path. Workflow
nodes set their own paths (runtime.workflow), which this never overwrites.
"""

from __future__ import annotations

from typing import Optional

from runtime.agents.base_agent import BaseAgent

RUN = "@1"  # an agent node runs once per invocation in 2.13's chat mode


def agent_node_path(root: BaseAgent, author: str) -> str:
    """The path of the events `author` writes in a tree rooted at `root`; '' where 2.13 sets none."""
    from runtime.agents.llm_agent import LlmAgent

    if not isinstance(root, LlmAgent) or not author or author == "user":
        return ""
    agent: Optional[BaseAgent] = root.find_agent(author)
    if agent is None:
        return ""
    while agent.parent_agent is not None and not isinstance(agent.parent_agent, LlmAgent):
        agent = agent.parent_agent  # run inside a Sequential/Parallel/Loop agent: that agent's node
    chain = []
    while agent is not None:
        chain.append(agent.name + RUN)
        agent = agent.parent_agent
    return "/".join(reversed(chain))


def place(root: BaseAgent, event) -> None:
    """Sets the event's node_info.path where 2.13 would and none is set yet."""
    if event.node_info.path:
        return
    path = agent_node_path(root, event.author)
    if path:
        event.node_info.path = path
