"""Writes and side effects of the tool hub, one module per concern."""
