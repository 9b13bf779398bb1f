"""Computer use (google-adk 2.13's `tools.computer_use`): a model drives a browser-like computer.

`BaseComputer` is what you implement (a real browser, a sandbox, a fake for tests);
`ComputerUseToolset` offers its actions to a computer-use model; `ComputerUseTool` runs one action,
mapping the model's 1000x1000 coordinates onto the real screen."""

from runtime.tools.computer_use.base_computer import BaseComputer, ComputerEnvironment, ComputerState
from runtime.tools.computer_use.computer_use_tool import ComputerUseTool
from runtime.tools.computer_use.computer_use_toolset import ComputerUseToolset

__all__ = ["BaseComputer", "ComputerEnvironment", "ComputerState", "ComputerUseTool", "ComputerUseToolset"]
