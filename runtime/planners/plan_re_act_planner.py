"""PlanReActPlanner (google-adk's `planners.plan_re_act_planner`): the model plans, acts and reasons
under tags, and only what follows the final-answer tag is its answer; the rest is kept as thought.

The planning instruction is google-adk 2.13's, word for word: an ADK app that uses this planner
must prompt its model as it did on ADK."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from runtime.planners.base_planner import BasePlanner

if TYPE_CHECKING:
    from runtime.contexts import CallbackContext, ReadonlyContext
    from runtime.models import LlmRequest

PLANNING_TAG = "/*PLANNING*/"
REPLANNING_TAG = "/*REPLANNING*/"
REASONING_TAG = "/*REASONING*/"
ACTION_TAG = "/*ACTION*/"
FINAL_ANSWER_TAG = "/*FINAL_ANSWER*/"
_THOUGHT_TAGS = (PLANNING_TAG, REASONING_TAG, ACTION_TAG, REPLANNING_TAG)

_SECTIONS = (
    f"""
When answering the question, try to leverage the available tools to gather the information instead of your memorized knowledge.

Follow this process when answering the question: (1) first come up with a plan in natural language text format; (2) Then use tools to execute the plan and provide reasoning between tool code snippets to make a summary of current state and next step. Tool code snippets and reasoning should be interleaved with each other. (3) In the end, return one final answer.

Follow this format when answering the question: (1) The planning part should be under {PLANNING_TAG}. (2) The tool code snippets should be under {ACTION_TAG}, and the reasoning parts should be under {REASONING_TAG}. (3) The final answer part should be under {FINAL_ANSWER_TAG}.
""",
    f"""
Below are the requirements for the planning:
The plan is made to answer the user query if following the plan. The plan is coherent and covers all aspects of information from user query, and only involves the tools that are accessible by the agent. The plan contains the decomposed steps as a numbered list where each step should use one or multiple available tools. By reading the plan, you can intuitively know which tools to trigger or what actions to take.
If the initial plan cannot be successfully executed, you should learn from previous execution results and revise your plan. The revised plan should be under {REPLANNING_TAG}. Then use tools to follow the new plan.
""",
    """
Below are the requirements for the reasoning:
The reasoning makes a summary of the current trajectory based on the user query and tool outputs. Based on the tool outputs and plan, the reasoning also comes up with instructions to the next steps, making the trajectory closer to the final answer.
""",
    """
Below are the requirements for the final answer:
The final answer should be precise and follow query formatting requirements. Some queries may not be answerable with the available tools and information. In those cases, inform the user why you cannot process their query and ask for more information.
""",
    """
Below are the requirements for the tool code:

**Custom Tools:** The available tools are described in the context and can be directly used.
- Code must be valid self-contained Python snippets with no imports and no references to tools or Python libraries that are not in the context.
- You cannot use any parameters or fields that are not explicitly defined in the APIs in the context.
- The code snippets should be readable, efficient, and directly relevant to the user query and reasoning steps.
- When using the tools, you should use the library name together with the function name, e.g., vertex_search.search().
- If Python libraries are not provided in the context, NEVER write your own code other than the function calls using the provided tools.
""",
    """
VERY IMPORTANT instruction that you MUST follow in addition to the above instructions:

You should ask for clarification if you need more information to answer the question.
You should prefer using the information available in the context instead of repeated tool use.
""",
)
PLANNING_INSTRUCTION = "\n\n".join(_SECTIONS)


def _without_tags(text: str) -> str:
    for tag in _THOUGHT_TAGS:
        text = text.replace(tag, "")
    return text


class PlanReActPlanner(BasePlanner):
    """Asks the model to plan before it acts; needs no built-in thinking from the model."""

    def build_planning_instruction(self, readonly_context: ReadonlyContext, llm_request: LlmRequest) -> str:
        return PLANNING_INSTRUCTION

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> Optional[list[types.Part]]:
        """Text before the final answer becomes thought; the first group of function calls ends the
        answer (calls without a name are dropped)."""
        if not response_parts:
            return None
        kept: list[types.Part] = []
        for index, part in enumerate(response_parts):
            call = part.function_call
            if call is not None:
                if not call.name:
                    continue
                kept.append(part)
                for later in response_parts[index + 1:]:
                    if not later.function_call:
                        break
                    kept.append(later)
                return kept
            kept.extend(self._split(part))
        return kept

    def _split(self, part: types.Part) -> list[types.Part]:
        text = part.text or ""
        if FINAL_ANSWER_TAG in text:
            cut = text.rfind(FINAL_ANSWER_TAG)
            reasoning, answer = _without_tags(text[:cut]), text[cut + len(FINAL_ANSWER_TAG):]
            parts = [types.Part(text=reasoning, thought=True)] if reasoning else []
            return parts + ([types.Part(text=answer)] if answer else [])
        if text.startswith(_THOUGHT_TAGS):
            part.text, part.thought = _without_tags(text), True
        return [part]
