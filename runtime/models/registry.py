"""Model names to model classes, so an agent can say `model="gemini-2.5-flash"`."""

from __future__ import annotations

import re
from typing import Optional

from domain.errors import InvalidArgumentError

from .base_llm import BaseLlm


class UnknownModelError(InvalidArgumentError):
    """No registered model class serves this model name."""


class LLMRegistry:
    """Class-level registry: `register` a BaseLlm subclass, `resolve` a name to it."""

    _registry: dict[str, type[BaseLlm]] = {}

    @classmethod
    def register(cls, llm_cls: type[BaseLlm]) -> type[BaseLlm]:
        """Registers every regex of `llm_cls.supported_models()`; later registrations win."""
        for pattern in llm_cls.supported_models():
            cls._registry[pattern] = llm_cls
        return llm_cls

    @classmethod
    def resolve(cls, model_name: str) -> type[BaseLlm]:
        # Newest first, so a registration can override a built-in pattern.
        for pattern, llm_cls in reversed(list(cls._registry.items())):
            if re.fullmatch(pattern, model_name):
                return llm_cls
        if "/" in model_name:
            via_litellm = _litellm_for(model_name)
            if via_litellm is not None:
                return via_litellm
        known = ", ".join(sorted(cls._registry)) or "none"
        hint = (
            " A \"provider/model\" name goes through LiteLLM when the litellm package knows the "
            "provider: pip install 'chronicle[litellm]'."
            if "/" in model_name
            else " For Claude through Anthropic's API pass AnthropicLlm(model=...) "
            "(pip install 'chronicle[anthropic]'), or name it \"anthropic/<model>\" for LiteLLM."
            if model_name.startswith("claude-")
            else ""
        )
        raise UnknownModelError(
            f"No model class serves {model_name!r} (registered patterns: {known}). "
            "Pass a BaseLlm instance as the agent's model, or LLMRegistry.register() a class "
            "whose supported_models() matches this name." + hint
        )

    @classmethod
    def new_llm(cls, model_name: str) -> BaseLlm:
        return cls.resolve(model_name)(model=model_name)


def _litellm_for(model_name: str) -> Optional[type[BaseLlm]]:
    """LiteLlm for a "provider/model" name whose provider LiteLLM knows (as google-adk 2.13
    resolves names beyond its patterns), when the litellm extra is installed; else None."""
    try:
        import litellm

        from .lite_llm import LiteLlm
    except ImportError:
        return None
    return LiteLlm if model_name.partition("/")[0] in litellm.provider_list else None
