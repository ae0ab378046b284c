"""The tool registry (DESIGN section 9): tools are code, registered once at start-up.

Every schema is checked against the JSON Schema 2020-12 meta-schema when it is registered, inputs
must be closed objects (`additionalProperties: false`), and a tool names the connector types that
implement it. A bad definition stops the process at start-up (and `manage.py check` reports it),
never a request at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from django.core.exceptions import ImproperlyConfigured
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolhub.models import RiskLevel

# Domain -> the connector types that can serve it.
DOMAINS: dict[str, tuple[str, ...]] = {
    "itsm": ("itsmplatform",),
    "wiki": ("wikispace",),
    "documents": ("sitelib",),
    "itdocs": ("itdocs",),
    "knowledge": ("knowledge",),  # the tenant's own knowledge base, in this service
}
TOOL_KEY = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")  # <domain>.<resource>.<verb>


def nullable(type_name: str) -> dict:
    """A value of `type_name` or null, spelled with `anyOf` rather than a list of types: clients
    that map tool schemas onto a one-type dialect (function declarations of some model providers)
    read it, and the MCP Inspector's `--strict` check passes."""
    return {"anyOf": [{"type": type_name}, {"type": "null"}]}


def _type_lists(schema: object, path: str = "") -> list[str]:
    """Where a schema gives `type` as a list (less portable than `anyOf`, see `nullable`)."""
    if isinstance(schema, list):
        return [p for i, item in enumerate(schema) for p in _type_lists(item, f"{path}/{i}")]
    if not isinstance(schema, dict):
        return []
    found = [path or "/"] if isinstance(schema.get("type"), list) else []
    schemas = ((key, value) for key, value in schema.items() if key not in _INSTANCE_KEYWORDS)
    return found + [p for key, value in schemas for p in _type_lists(value, f"{path}/{key}")]


_INSTANCE_KEYWORDS = frozenset({"enum", "const", "examples", "default"})  # values, not schemas


# run(client, input) -> output; the client is the connector's vendor client.
ToolFunction = Callable[[object, dict], object]


@dataclass(frozen=True)
class Tool:
    key: str
    name: str
    description: str
    domain: str
    risk_level: str
    version: str
    input_schema: dict
    output_schema: dict
    implementations: Mapping[str, ToolFunction] = field(hash=False, compare=False)

    @property
    def connectors(self) -> list[str]:
        return sorted(self.implementations)

    # Compiled once per tool: every call validates its input and output with these.
    @cached_property
    def input_validator(self) -> Draft202012Validator:
        return _validator(self.input_schema)

    @cached_property
    def output_validator(self) -> Draft202012Validator:
        return _validator(self.output_schema)


def _validator(schema: dict) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


_TOOLS: dict[str, Tool] = {}


def tool_register(tool: Tool) -> Tool:
    problems = tool_problems(tool)
    if problems:
        raise ImproperlyConfigured(f"Tool {tool.key!r} is invalid: {'; '.join(problems)}")
    existing = _TOOLS.get(tool.key)
    if existing is not None and existing is not tool:
        raise ImproperlyConfigured(f"Tool {tool.key!r} is registered twice.")
    _TOOLS[tool.key] = tool
    return tool


def tool_define(
    key: str,
    name: str,
    description: str,
    risk_level: str,
    input_properties: dict,
    output_schema: dict,
    run: ToolFunction,
    *,
    version: str = "1.0.0",
) -> Tool:
    """Register a shipped tool: its domain is the key's first part, served by that domain's
    connector, and its input an object with `input_properties` (`properties`, `required`, ...) and
    no other members."""
    domain = key.split(".", 1)[0]
    return tool_register(
        Tool(
            key=key,
            name=name,
            description=description,
            domain=domain,
            risk_level=risk_level,
            version=version,
            input_schema={"type": "object", "additionalProperties": False, **input_properties},
            output_schema=output_schema,
            implementations={connector: run for connector in DOMAINS.get(domain, ())},
        )
    )


def tool_problems(tool: Tool) -> list[str]:
    problems: list[str] = []
    if not TOOL_KEY.match(tool.key) or not tool.key.startswith(f"{tool.domain}."):
        problems.append("the key must be <domain>.<resource>.<verb> in lower case")
    if tool.risk_level not in RiskLevel.values:
        problems.append(f"unknown risk level {tool.risk_level!r}")
    allowed = DOMAINS.get(tool.domain)
    if allowed is None:
        problems.append(f"unknown domain {tool.domain!r}")
    elif not tool.implementations or set(tool.implementations) - set(allowed):
        problems.append(f"connectors must be some of {', '.join(allowed)}")
    for label, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            problems.append(f"{label} schema: {exc.message}")
    for label, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
        problems += [
            f"{label} schema at {where}: a list of types (use nullable())" for where in _type_lists(schema)
        ]
    if (
        tool.input_schema.get("type") != "object"
        or tool.input_schema.get("additionalProperties") is not False
    ):
        problems.append("the input schema must be an object with additionalProperties: false")
    return problems


def tool_lookup(key: str) -> Tool | None:
    return _TOOLS.get(key)


def tools_all(*, domain: str | None = None) -> list[Tool]:
    tools = sorted(_TOOLS.values(), key=lambda t: t.key)
    return [t for t in tools if domain is None or t.domain == domain]


def registry_problems() -> list[str]:
    """Everything wrong with the registered tools (the start-up system check)."""
    return [f"{tool.key}: {problem}" for tool in _TOOLS.values() for problem in tool_problems(tool)]
