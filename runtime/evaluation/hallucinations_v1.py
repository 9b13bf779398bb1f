"""`hallucinations_v1`, as google-adk 2.13 scores it: each text a turn answers (its final response; with
`evaluate_intermediate_nl_responses`, also the text it said along the way) is split into sentences by the judge,
then the judge labels each sentence against what the agent knew at that point (the agents' instructions, the
user's message, the tools, grounding, the calls made and their results). A text's score is the share of its
sentences `supported` or `not_applicable`; a turn's the mean over its texts; the case's the mean over its turns.
A judge call that fails leaves its text unscored (a judge that cannot be called at all fails the case)."""

from __future__ import annotations

import json
import logging
import re
import statistics
from dataclasses import dataclass
from typing import Optional

from domain.errors import InvalidArgumentError

from .eval_case import Invocation, InvocationEvent, InvocationEvents
from .eval_metrics import HallucinationsCriterion
from .evaluator import EvaluationResult, PerInvocationResult, check_lengths
from .judge_inputs import grounding_metadata_json, tool_declarations_json
from .llm_as_judge import JudgedMetric, judged_status, text_of

logger = logging.getLogger(__name__)

# The judge's two prompts, word for word as google-adk 2.13 sends them (the judge must read the same text).
SEGMENTER_PROMPT = """
You are a helpful and harmless AI assistant. You will be provided with a model-generated response.
Your task is to segment the provided response sentence by sentence so that we could analyze each sentence in the future.

**Instructions:**
1. Overall, you should decompose the whole provided response into individual sentences. You should make sure the output covers ALL the sentences in the provided response block.
2. You should COPY each sentence as it is, WORD BY WORD. DO NOT modify the sentence or the surrounding punctuation.
3. If there are bullet points in the response, you should segment each bullet point into DIFFERENT sentences. If one bullet point has sub bullet points, you should further decompose sub bullet points into DIFFERENT sentences.
For example, if there are responses like "it has three criteria: * aaa. * bbb. * ccc", you should segment them into FOUR sentences: "it has three criteria", "aaa", "bbb", "ccc". Bullet points could start with numbers (1/2/3/etc) or symbols like "*", "-" etc.
4. When encountering tables, you should include the whole table in ONE sentence output.
5. Each sentence should be meaningful to further analyze on. DO NOT ONLY put symbols themselves into a sentence.
6. You should ONLY output segmented sentences in the provided response. DO NOT make up any new sentences.

**Input Format:**

The input will be the model-generated response:
* **Response:** The model-generated response to be analyzed.

**Output Format:**

For each decomposed sentence, wrap them with <sentence> and </sentence> like the following:
<sentence>...</sentence>
<sentence>...</sentence>

**Example:**

**Input:**

**Response Begin**
There are three kinds of fruits:
1. Apples are red.
2. Bananas are green.
3. Pears are purple.

For prices:
* Bananas are cheaper than apples.

Enjoy your fruit!
**Response End**

**Output:**
<sentence>There are three kinds of fruits:</sentence>
<sentence>1. Apples are red.</sentence>
<sentence>2. Bananas are green.</sentence>
<sentence>3. Pears are purple.</sentence>
<sentence>For prices:</sentence>
<sentence>* Bananas are cheaper than apples.</sentence>
<sentence>Enjoy your fruit!</sentence>

**Now, given the following response, please segment the response into sentences:**

**Input:**

**Response Begin**
{response}
**Response End**

**Your Sentence Segmentation Output:**

""".strip()

VALIDATOR_PROMPT = """
You are a helpful and harmless AI assistant. You will be provided with a textual context and sentences from a model-generated response.
Your task is to analyze sentence by sentence and classify each sentence according to its relationship with the provided context.

**Instructions:**

1. **Read the textual context carefully.**
2. **For each sentence, assign one of the following labels:**
    * **`supported`**: The sentence is entailed by the given context. Provide a supporting excerpt from the context. The supporting except must *fully* entail the sentence.
    * **`unsupported`**: The sentence is not entailed by the given context. No excerpt is needed for this label.
    * **`contradictory`**: The sentence is falsified by the given context. Provide a contradicting excerpt from the context.
    * **`disputed`**: The given context contains both supporting and contradicting information. Provide both supporting and contradicting excerpt from the context.
    * **`not_applicable`**: The sentence does not require factual attribution (e.g., opinions, planning steps, greetings, questions, disclaimers, mathematical calculation).
3. **For each label, provide a short rationale explaining your decision.** The rationale should be separate from the excerpt.
4. **Be very strict with your `supported`, `contradictory` and `disputed` decisions.** Unless you can find straightforward, indisputable evidence excepts *in the context* that a sentence is `supported`, `contradictory` or `disputed`, consider it `unsupported`.  You should not employ world knowledge unless it is truly trivial.
5. "tool_outputs" blocks contain code execution results of the "tool_code" blocks immediately above them. If any sentence is based on "tool_outputs" results, first analyze if the corresponding "tool_code" is supported and if the results are error-free. Only if the "tool_code" block is supported, you can treat code execution results as correct.
6. "Grounding metadata" contains source attribution from model-internal tools (e.g. search) whose results may not otherwise appear in "tool_outputs". A sentence attributed by "grounding_supports" in "Grounding metadata" should be treated as `supported`.
7. If you need to cite multiple supporting excerpts, simply concatenate them. Excerpt could be summary from the context if it is too long.

**Input Format:**

The input will consist of two parts, clearly separated:

* **Context:**  The textual context used to generate the response.
* **Sentences:** The sentences from the model-generated response to be analyzed. Each sentence will be wrapped in <sentence>...</sentence>.

**Output Format:**

For each sentence, output a block of text with the following fields:

* sentence: The sentence being analyzed. Please directly copy the sentence which is provided.
* label: One of `supported`, `unsupported`, `contradictory`, `disputed` or `not_applicable`.
* rationale: A brief explanation for the assessment
* supporting_excerpt: A relevant excerpt from the context that supports the sentence. Only required for `supported` and `disputed` labels.
* contradicting_excerpt: A relevant excerpt from the context that contradicts with the sentence. Only required for `contradictory` and `disputed` labels.

**Example:**

**Input:**

**Context Begin**
Apples are red fruits. Bananas are yellow fruits. Pears are purple fruits. Pears are blue fruits.
**Context End**

**Sentences Begin**
<sentence>Apples are red.</sentence>
<sentence>Bananas are green.</sentence>
<sentence>Pears are purple.</sentence>
<sentence>Bananas are cheaper than apples.</sentence>
<sentence>Enjoy your fruit!</sentence>
**Sentences End**

**Output:**
sentence: Apples are red.
label: supported
rationale: The context explicitly states that apples are red.
supporting_excerpt: Apples are red fruits.
contradicting_excerpt: null

sentence: Bananas are green.
label: contradictory
rationale: The context states that bananas are yellow, not green.
supporting_excerpt: null
contradicting_excerpt: Bananas are yellow fruits.

sentence: Pears are purple.
label: disputed
rationale: The context states that pears are purple but it also states that pears are blue.
supporting_excerpt: Pears are purple fruits
contradicting_excerpt: Pears are blue fruits

sentence: Bananas are cheaper than apples.
label: unsupported
rationale: The context does not mention the price of bananas or apples.
supporting_excerpt: null
contradicting_excerpt: null

sentence: Enjoy your fruit!
label: not_applicable
rationale: This is a general expression and does not require factual attribution.
supporting_excerpt: null
contradicting_excerpt: null

**Now, please analyze the following context and sentences:**

**Input:**

**Context Begin**
{context}
**Context End**

**Sentences Begin**
{sentences}
**Sentences End**

**Output:**

""".strip()

_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL)
# one labelled sentence: its five fields in order, up to the next sentence or the end
_LABELLED = re.compile(r"sentence:(.*?)\nlabel:(.*?)\nrationale:(.*?)\nsupporting_excerpt:(.*?)"
                       r"\ncontradicting_excerpt:(.*?)(?=\nsentence:|\Z)", re.DOTALL | re.IGNORECASE)
GROUNDED = frozenset({"supported", "not_applicable"})
UNGROUNDED = frozenset({"unsupported", "contradictory", "disputed"})


@dataclass(frozen=True)
class Step:
    """A text the agent answered, and what it knew when it did."""

    response: str
    context: str


def sentences_of(answer: str) -> list[str]:
    return _SENTENCE.findall(answer)


def labels_of(answer: str) -> list[str]:
    """Each labelled sentence's label, lower case; a label outside the five is kept (and counts for nothing)."""
    return [m.group(2).strip().lower() for m in _LABELLED.finditer(answer.strip())]


def grounded_share(labels: list[str]) -> Optional[float]:
    votes = [1 if label in GROUNDED else 0 for label in labels if label in GROUNDED | UNGROUNDED]
    return statistics.mean(votes) if votes else None


def mean_of(scores: list[Optional[float]]) -> Optional[float]:
    known = [s for s in scores if s is not None]
    return statistics.mean(known) if known else None


def _json_list(items) -> str:
    return json.dumps([item.model_dump(exclude_none=True) for item in items], indent=2) + "\n"


def context_of(turn: Invocation, events: list[InvocationEvent]) -> str:
    """What the judge checks a text against: the agents' instructions, the user's message, the tools and the
    grounding, then each earlier step's text, calls and results."""
    instructions, tools = "", "Agent has no tools."
    if turn.app_details:
        details = turn.app_details.agent_details
        instructions = "\n\n".join(f"{name}:\n{d.instructions}" for name, d in details.items() if d.instructions)
        tools = tool_declarations_json(turn.app_details)
    parts = [f"Developer instructions:\n{instructions}\n", f"User prompt:\n{text_of(turn.user_content)}\n",
             "Tool definitions:", f"{tools}\n",
             "Grounding metadata:", f"{grounding_metadata_json(InvocationEvents(invocation_events=events))}\n"]
    for event in events:
        said = event.content.parts if event.content and event.content.parts else []
        texts = [p.text for p in said if p.text]
        calls = [p.function_call for p in said if p.function_call]
        results = [p.function_response for p in said if p.function_response]
        if texts:
            parts.append("\n".join(texts) + "\n")
        if calls:
            parts += ["tool_calls:", _json_list(calls)]
        if results:
            parts += ["tool_outputs:", _json_list(results)]
    return "\n".join(parts)


class HallucinationsV1Evaluator(JudgedMetric):
    criterion_type = HallucinationsCriterion
    needs_app_details = True

    def steps(self, turn: Invocation) -> list[Step]:
        """The texts to judge, each with the steps before it; the final response sees every step."""
        events = turn.intermediate_data.invocation_events if isinstance(turn.intermediate_data, InvocationEvents) \
            else []
        found, before = [], []
        if self._criterion.evaluate_intermediate_nl_responses:
            for event in events:
                texts = [p.text for p in event.content.parts if p.text] if event.content and event.content.parts \
                    else []
                if texts:
                    # the step's own grounding is context for its text; its content is what is judged
                    seen = before + [event.model_copy(update={"content": None})] if event.grounding_metadata \
                        else before
                    context = context_of(turn, seen)
                    found += [Step(text, context) for text in texts]
                before.append(event)
        else:
            before = list(events)
        final = text_of(turn.final_response)
        if final:
            found.append(Step(final, context_of(turn, before)))
        return found

    async def _answer_text(self, prompt: str) -> Optional[str]:
        return text_of((await self.ask_judge(self.judge_request(prompt))).content)

    async def step_score(self, step: Step) -> Optional[float]:
        """The share of the text's sentences the judge finds grounded; None when the judge did not say."""
        try:
            answer = await self._answer_text(SEGMENTER_PROMPT.format(response=step.response))
            sentences = sentences_of(answer) if answer is not None else []
            if not sentences:
                return None
            listed = "\n".join(f"<sentence>{s}</sentence>" for s in sentences)
            answer = await self._answer_text(VALIDATOR_PROMPT.format(context=step.context, sentences=listed))
        except InvalidArgumentError:  # no credentials, no such model: not a judgment
            raise
        except Exception as e:  # noqa: BLE001 - as in google-adk, a failed judge call leaves the text unscored
            logger.warning("A hallucinations_v1 judge call failed: %s", e, exc_info=e)
            return None
        return grounded_share(labels_of(answer)) if answer is not None else None

    async def evaluate_invocations(self, actual_invocations, expected_invocations=None, conversation_scenario=None
                                   ) -> EvaluationResult:
        check_lengths(actual_invocations, expected_invocations)
        results = []
        for n, turn in enumerate(actual_invocations):
            expected = expected_invocations[n] if expected_invocations is not None else None
            steps = self.steps(turn)
            score = mean_of([await self.step_score(step) for step in steps]) if steps else None
            results.append(PerInvocationResult(actual_invocation=turn, expected_invocation=expected, score=score,
                                               eval_status=judged_status(score, self._threshold), rubric_scores=[]))
        if not results:
            return EvaluationResult()
        overall = mean_of([r.score for r in results])
        return EvaluationResult(overall_score=overall, overall_eval_status=judged_status(overall, self._threshold),
                                per_invocation_results=results)
