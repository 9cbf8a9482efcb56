"""Venue-scale batches: manifest, engines (local process pool, Ray), agreement metrics, dashboard.

Run directory of a batch:
  <id>/report.{json,md,html}, <id>/evidence/...   one review per artifact (with --repeat K: <id>/run-<k>/)
  <id>/outcome.json                                written last: the review is complete (or failed) once it exists
  summary.json, summary.md, index.html             regenerated at the end of every run, also after a stop
  .work/                                           reviews in flight; wiped at the start of the next run
"""
