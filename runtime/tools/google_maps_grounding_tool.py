"""google_maps_grounding: Gemini's built-in grounding in Google Maps (ADK 2.13's name)."""

from __future__ import annotations

from google.genai import types

from runtime.tools.builtin import BuiltInTool


class GoogleMapsGroundingTool(BuiltInTool):
    def __init__(self) -> None:
        super().__init__(name="google_maps", field="google_maps", value=types.GoogleMaps(), label="Google maps tool")


google_maps_grounding = GoogleMapsGroundingTool()
