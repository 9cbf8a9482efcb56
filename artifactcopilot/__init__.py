"""ArtifactCopilot: rubric-guided, evidence-backed research artifact evaluation."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("artifactcopilot")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
