"""Domain errors. The CLI turns each into one line and an exit code."""


class CopilotError(Exception):
    """An error the user can act on; `hint` says what to do."""

    exit_code = 1

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


class UsageError(CopilotError):
    exit_code = 2


class RubricError(CopilotError):
    """The rubric data is malformed (unknown fact, bad condition)."""


class EvidenceError(CopilotError):
    """The evidence store is inconsistent (hash mismatch, rewrite attempt)."""


class ToolScopeError(CopilotError):
    """A phase called a tool outside its skill's Tool Scope."""


class AcquisitionError(CopilotError):
    """The artifact could not be acquired; recorded as gate evidence, not raised to the user."""
