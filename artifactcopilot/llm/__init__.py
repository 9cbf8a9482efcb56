"""Plumbing of the LLM path: settings, cost accounting, retries, prompts and transcripts."""
