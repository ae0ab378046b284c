"""Vault services: the writes, the secret reads and the jobs' work, one module an area."""
