"""`final_response_match_v2`: a judge model says whether the agent's final answer is valid against the
expected one; a turn's samples go by majority (a tie is invalid), the case's score is the share of valid turns.

The judge's instructions are google-adk 2.13's, word for word (Apache-2.0, Google LLC): the point of the
metric is that a judge given the same prompt scores the same here as under `adk eval`."""

from __future__ import annotations

import re
from typing import Optional

from .eval_case import Invocation
from .evaluator import EvaluationResult, PerInvocationResult
from .llm_as_judge import AutoRaterScore, LlmAsJudge, judged_status, text_of

PROMPT = """You are an expert rater for an AI agent. The AI agent is going to call an API to answer the user query and generate API tool use code based for the choice of the API and API arguments. The ideal model response should be a function call that fulfills user query, or a natural language response hedges or asks users for further clarification if a function call does not apply.
The primary focus of this rating task is to check correctness of the model responses.

The data consists of:
- A user query.
- A model generated response for the prompt. The responses can consist of:
  - Natural language, when the model is asking for clarification, or tells the user it does not possess the requested functionality / option.
  - Code, in the form of one or multiple python function calls, and additional code as needed, for when the model is fulfilling the user request.
You can use the help from a reference response annotated by a human rater. This reference response is of high quality. You can compare the agent's response with the reference response and decide if the agent's response is valid.
Note sometimes the reference response only contains the key entities of the correct answer and you need to be flexible to allow the agent response to contain more information than the reference response, or to present the key entities in a different format or structure or in shorter or longer format.
When the agent response is provided in the form of tables/dataframes or should be best provided in the form of tables/dataframes: focus on the key entities and main components requested in the user query and check whether you can retrieve those from the agent response. Likewise, if you have the reference response, then find out the key entities and main components in them and check whether you can retrieve those from the agent response. If the prompt does not specify any format instructions and the main items/components are included in the response then tolerate the differences in the formatting of those tables/dataframes.

You should follow the constitutions below very carefully to rate the model response:
- Allow flexibility of format even when reference code only uses one of the possible format, unless API spec or user prompt has explicit format requirement
  - e.g. For state name, allow both abbreviation and full name unless API spec has explicit requirement. e.g. both 'tx' and 'Texas' should be allowed in the agent response even when reference code only uses one of them.
  - e.g. If a reference response list outputs in a list format, the agent response is allowed to use sentence format and vice versa unless user prompt explicitly asks for a specific format.
  - e.g. For numbers, allow flexibility of formatting, e.g. 1000000 vs 1,000,000.
- The model shouldn't assume that it doesn't have access to according data or incapable of answering the question if reference response is able to find a legit answer.
- If the model response contains the correct final answer, rate it as valid even when the model response contains more information than the reference response.
- If the user prompt has csv or other table format data, don't read it yourself. Trust the reference response final answer instead.
- When the validation needs maths, date calculations, do not use your own calculator. Trust the reference response final answer instead.
- Be mindful about unit of numbers. For example, if the reference response says 100 miles, but the model response says 100 km, it is invalid.
- When the agent response or the reference response is provided in the form of tables/dataframes: focus on the key entities and main components requested in the user query and check whether you can retrieve those from the agent response and whether those match the reference response. If the user query does not specify any format instructions and the main items/components are included in the response then tolerate the differences in the formatting of those tables/dataframes.
- When the answer is in numeric format, check whether there are any format requirements in the numeric format, rounding, precision, number of decimals, etc. specified in the user query and the prompt. If there are no such instructions, then tolerate different numerical formats.
- When the answer is in numeric format and there are rounding or precision differences between the agent response and the reference response, if no further instructions are provided evaluate if the rounding strategy or precision in the agent response follows the standards for that entity. For instance, model accuracy scores must be reported with at least two decimal places (e.g., 0.798 → 0.80 is acceptable,  but 0.7 is not).

Below are the inputs:
{{
  "User prompt": {prompt},
  "Agent response": {response},
  "Reference response": {golden_response},
}}

The answer should be a json alone which follows the json structure below:
{{
  "reasoning": [reasoning],
  "is_the_agent_response_valid": [valid or invalid],
}}
Answer with assertiveness:
"""

# The label's value: after the key, optional brackets/quotes/whitespace, up to a comma, newline or brace.
_LABEL = r'\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]'
_VALID_LABEL = re.compile(r'"is_the_agent_response_valid":' + _LABEL)
_INVALID_LABEL = re.compile(r'"is_the_agent_response_invalid":' + _LABEL)
_SAYS_INVALID = {"invalid", "almost", "false", "partially_valid", "partially valid", "partially"}
_SAYS_VALID = {"valid", "true"}


def parse_verdict(answer: str) -> Optional[bool]:
    """True for valid, False for invalid, None when the answer has no label (as google-adk reads it)."""
    found = _VALID_LABEL.search(answer)
    if found:
        label = found.group(1).strip().rstrip(",}")
        return False if label in _SAYS_INVALID else True if label in _SAYS_VALID else None
    found = _INVALID_LABEL.search(answer)
    if found:  # a judge that named the field "..._invalid"
        return found.group(1).strip().rstrip(",}") not in ("true", "invalid")
    return None


class FinalResponseMatchV2Evaluator(LlmAsJudge):
    expected_invocations_required = True

    def format_auto_rater_prompt(self, actual: Invocation, expected: Optional[Invocation]) -> str:
        if expected is None:
            raise ValueError("expected_invocation is required for this metric.")
        both = self._criterion.include_intermediate_responses_in_final
        return PROMPT.format(prompt=text_of(expected.user_content),
                             response=text_of(actual, with_intermediate=both) or "",
                             golden_response=text_of(expected, with_intermediate=both) or "")

    def convert_auto_rater_response_to_score(self, response) -> AutoRaterScore:
        text = text_of(response.content)
        verdict = None if text is None else parse_verdict(text)
        return AutoRaterScore(score=None if verdict is None else float(verdict))

    def aggregate_per_invocation_samples(self, samples: list[PerInvocationResult]) -> PerInvocationResult:
        valid = [s for s in samples if s.score == 1.0]
        invalid = [s for s in samples if s.score == 0.0]
        if not valid and not invalid:
            return samples[0]
        return valid[0] if len(valid) > len(invalid) else invalid[0]

    def aggregate_invocation_results(self, results: list[PerInvocationResult]) -> EvaluationResult:
        judged = [r.score for r in results if r.score is not None and r.eval_status.name != "NOT_EVALUATED"]
        if not judged:
            return EvaluationResult(per_invocation_results=results)
        overall = sum(judged) / len(judged)
        return EvaluationResult(overall_score=overall, overall_eval_status=judged_status(overall, self._threshold),
                                per_invocation_results=results)
