"""Sub-commands beyond `review` and `schema`. Each module here defines `register(app)`."""
