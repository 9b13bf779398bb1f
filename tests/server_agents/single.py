"""An app that is one module (NAME.py), exposing root_agent."""

from runtime import LlmAgent
from runtime.models.scripted import ScriptedLlm

root_agent = LlmAgent(name="single_agent", model=ScriptedLlm(["Hello from a module."], cycle=True))
