"""HTTP conventions shared by every app: errors, envelopes, base views, pagination, rate limits."""
