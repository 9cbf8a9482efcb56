"""Review tools by capability (reading, running, comparing, recording), declared once in `registry.TOOLS`."""
from .context import ReviewContext, ReviewOptions
from .registry import TOOLS, ToolSpec
from .running import CommandResult
from .scope import PhaseTools

__all__ = ["TOOLS", "CommandResult", "PhaseTools", "ReviewContext", "ReviewOptions", "ToolSpec"]
