"""A model that replays canned turns: for demos, tests and benchmarks, with no network."""

from __future__ import annotations

import inspect
import re
import uuid
from typing import Any, AsyncGenerator, Callable, Optional, Sequence, Union

from google.genai import types
from pydantic import Field, PrivateAttr

from domain.errors import ChronicleError

from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from .streaming import StreamingAggregator

Reply = Union[LlmResponse, types.Content, str]
# A turn is a reply, or a function of the request that returns one (it may be async).
Turn = Union[Reply, Callable[[LlmRequest], Any]]


class ScriptExhaustedError(ChronicleError, RuntimeError):
    """The scripted model was asked for more turns than it was given."""


class ScriptedLlm(BaseLlm):
    """Answers the n-th request with the n-th turn. Every request is kept in `.requests`.

    `ScriptedLlm(["Hi!", ScriptedLlm.call("get_weather", city="Paris"), answer_from_tool])`
    """

    model: str = "scripted"
    turns: list[Any] = Field(default_factory=list)
    cycle: bool = False
    # How many partial chunks a text part is split into when streaming.
    stream_chunks: int = 3
    requests: list[LlmRequest] = Field(default_factory=list, exclude=True)
    _played: int = PrivateAttr(default=0)

    def __init__(self, turns: Optional[Sequence[Turn]] = None, /, **data: Any):
        if turns is not None:
            data["turns"] = list(turns)
        super().__init__(**data)

    @property
    def turns_played(self) -> int:
        return self._played

    # Builders for turns.

    @staticmethod
    def call(name: str, /, **args: Any) -> types.Content:
        """A model turn that calls the tool `name` with `args`."""
        return ScriptedLlm.calls((name, args))

    @staticmethod
    def calls(*calls: tuple[str, dict[str, Any]]) -> types.Content:
        """A model turn that calls several tools at once (parallel function calling)."""
        return types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id=f"call-{uuid.uuid4().hex}", name=name, args=dict(args)
                    )
                )
                for name, args in calls
            ],
        )

    @staticmethod
    def last_function_response(llm_request: LlmRequest) -> Optional[types.FunctionResponse]:
        """The newest tool result in the request's conversation, for turns that answer from it."""
        for content in reversed(llm_request.contents):
            for part in reversed(content.parts or []):
                if part.function_response is not None:
                    return part.function_response
        return None

    # The model.

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        response = await self._next_response(llm_request)
        if not stream or response.content is None or not response.content.parts:
            yield response
            return
        aggregator = StreamingAggregator()
        for chunk in self._chunks(response.content):
            aggregator.add(chunk)
            yield chunk
        final = aggregator.close()
        # Keep what the script said about the turn beyond its parts.
        yield final.model_copy(
            update={
                "finish_reason": response.finish_reason or final.finish_reason,
                "usage_metadata": response.usage_metadata,
                "custom_metadata": response.custom_metadata,
                "grounding_metadata": response.grounding_metadata,
                "model_version": response.model_version,
            }
        )

    async def _next_response(self, llm_request: LlmRequest) -> LlmResponse:
        if not self.turns:
            raise ScriptExhaustedError(f"ScriptedLlm {self.model!r} was given no turns to play.")
        if self._played >= len(self.turns) and not self.cycle:
            raise ScriptExhaustedError(
                f"ScriptedLlm {self.model!r} has played all {len(self.turns)} of its turns, "
                f"so model call #{self._played + 1} has no answer. Add turns to the script, "
                "or pass cycle=True to start again from the first."
            )
        turn = self.turns[self._played % len(self.turns)]
        self._played += 1
        if callable(turn) and not isinstance(turn, (LlmResponse, types.Content)):
            turn = turn(llm_request)
            if inspect.isawaitable(turn):
                turn = await turn
        response = self._as_response(turn, llm_request)
        if response.model_version is None:
            response.model_version = self.model  # the model that answered, as an API names it
        return response

    def _as_response(self, reply: Any, llm_request: LlmRequest) -> LlmResponse:
        if isinstance(reply, LlmResponse):
            return reply.model_copy()  # the same scripted turn may be played again
        if isinstance(reply, str):
            reply = types.Content(role="model", parts=[types.Part(text=reply)])
        if isinstance(reply, types.Content):
            if self._played > len(self.turns):  # a replay (cycle=True): tool calls need new ids
                reply = _with_fresh_call_ids(reply)
            return LlmResponse(
                content=reply,
                finish_reason=types.FinishReason.STOP,
                usage_metadata=_estimated_usage(llm_request, reply),
            )
        raise TypeError(
            f"A ScriptedLlm turn must be an LlmResponse, a types.Content, a str or a callable "
            f"returning one of those; turn #{self._played} gave {type(reply).__name__}."
        )

    def _chunks(self, content: types.Content) -> list[LlmResponse]:
        chunks = []
        for part in content.parts or []:
            if part.text:
                pieces = _split(part.text, self.stream_chunks)
                for i, piece in enumerate(pieces):
                    # The signature of a signed part travels with its last piece.
                    signature = part.thought_signature if i == len(pieces) - 1 else None
                    piece_part = types.Part(text=piece, thought=part.thought, thought_signature=signature)
                    chunks.append(_partial(content.role, piece_part))
            else:
                chunks.append(_partial(content.role, part))
        return chunks


def _with_fresh_call_ids(content: types.Content) -> types.Content:
    content = content.model_copy(deep=True)
    for part in content.parts or []:
        if part.function_call is not None:
            part.function_call.id = f"call-{uuid.uuid4().hex}"
    return content


def _partial(role: Optional[str], part: types.Part) -> LlmResponse:
    return LlmResponse(content=types.Content(role=role or "model", parts=[part]), partial=True)


_WORDS = re.compile(r"\s*\S+\s*|\s+")


def _split(text: str, n: int) -> list[str]:
    """Splits text at word boundaries into at most n pieces that concatenate back to it."""
    words = _WORDS.findall(text)
    n = max(1, min(n, len(words)))
    size, extra = divmod(len(words), n)
    pieces, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        pieces.append("".join(words[start:end]))
        start = end
    return pieces


def _estimated_usage(
    llm_request: LlmRequest, reply: types.Content
) -> types.GenerateContentResponseUsageMetadata:
    """Token counts at about four characters a token, so analytics over scripted runs has numbers."""
    prompt_chars = sum(len(p.text or "") for c in llm_request.contents for p in c.parts or [])
    reply_chars = sum(len(p.text or "") for p in reply.parts or [])
    prompt, candidates = prompt_chars // 4 + 1, reply_chars // 4 + 1
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt, candidates_token_count=candidates, total_token_count=prompt + candidates
    )
