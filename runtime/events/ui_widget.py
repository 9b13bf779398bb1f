"""ADK's module path for UiWidget (google.adk.events.ui_widget); the class lives in domain."""

from domain.ui_widget import UiWidget

__all__ = ["UiWidget"]
