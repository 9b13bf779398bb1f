"""Workflow graphs (google-adk 2.x's `google.adk.workflow`), with every node's life in the log.

See projections.workflow for the facts recorded and how a resume reads them.
"""

import runtime.agents  # noqa: F401 -- first: runtime.invocation_context and runtime.agents import each other

from runtime.workflow.agent_node import AgentNode
from runtime.workflow.base_node import START, BaseNode, JoinNode, Node
from runtime.workflow.context import Context
from runtime.workflow.errors import (
    GraphValidationError,
    NodeInterruptedError,
    NodeTimeoutError,
    StateSchemaError,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from runtime.workflow.function_node import FunctionNode, node
from runtime.workflow.graph import DEFAULT_ROUTE, Edge
from runtime.workflow.interrupts import RequestInput
from runtime.workflow.parallel_worker import ParallelWorker
from runtime.workflow.retry_config import RetryConfig
from runtime.workflow.tool_node import ToolNode
from runtime.workflow.workflow import Workflow, as_root_agent

__all__ = [
    "AgentNode",
    "BaseNode",
    "Context",
    "DEFAULT_ROUTE",
    "Edge",
    "FunctionNode",
    "GraphValidationError",
    "JoinNode",
    "Node",
    "NodeInterruptedError",
    "NodeTimeoutError",
    "ParallelWorker",
    "RequestInput",
    "RetryConfig",
    "START",
    "StateSchemaError",
    "ToolNode",
    "Workflow",
    "WorkflowConfigurationError",
    "WorkflowDataError",
    "as_root_agent",
    "node",
]
