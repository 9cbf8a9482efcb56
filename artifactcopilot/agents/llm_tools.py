"""Former home of the LLM toolbox, kept so older imports resolve; the toolbox is `agents/llm/toolbox.py`."""

from .llm.toolbox import DATA_CLOSE, DATA_OPEN, TOOL_KINDS, LLMToolbox, data

__all__ = ["DATA_CLOSE", "DATA_OPEN", "TOOL_KINDS", "LLMToolbox", "data"]
