"""ADK's module path for InputValidationError: Chronicle's InvalidArgumentError, one class."""

from domain.errors import InputValidationError

__all__ = ["InputValidationError"]
