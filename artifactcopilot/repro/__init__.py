"""Reproduction helpers: compare what an artifact produced with what the paper reports."""
