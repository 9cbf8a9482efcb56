"""The LLM stack: settings and prices (`settings`), cost accounting (`cost`), retries (`retry`), one
model call (`calls`), transcripts (`transcript`), prompt templates (`prompts`), the endpoint
(`endpoint`) and the one tool-calling loop (`loop`). Nothing here knows about agents or phases."""
