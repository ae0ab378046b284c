"""The shipped tools; importing this package registers them all (toolhub.apps.ToolhubConfig.ready)."""

from toolhub.tools import documents, itdocs, itsm, knowledge, wiki  # noqa: F401
