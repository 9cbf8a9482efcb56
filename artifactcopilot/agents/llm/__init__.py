"""The LLM review agent (`agent`), its phase prompt (`prompt`), its tools (`toolbox`), its verifier
dialogue (`verifier`) and how `--agent llm` builds it (`build`). The model plumbing is in `artifactcopilot.llm`."""

from ...llm.endpoint import LLMUnavailable, check_endpoint, make_chat_model
from .agent import LLMReviewAgent
from .build import build_llm_agent
from .verifier import DialogueVerifier

__all__ = [
    "DialogueVerifier",
    "LLMReviewAgent",
    "LLMUnavailable",
    "build_llm_agent",
    "check_endpoint",
    "make_chat_model",
]
