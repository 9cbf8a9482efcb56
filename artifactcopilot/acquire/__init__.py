"""Acquisition: bring the paper (and later the artifact) into the review as structured data."""
