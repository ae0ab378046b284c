"""The quick check in front of jsonschema (`toolhub/quickcheck.py`): when it says valid, jsonschema
agrees; when it is unsure, jsonschema decides and words the errors."""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolhub import registry
from toolhub.inputs import _ENVELOPE_SCHEMA, schema_errors
from toolhub.quickcheck import quick_check

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def near(schema) -> st.SearchStrategy:
    """Values shaped like `schema` (at its edges, or a little past them), and arbitrary JSON."""
    if not isinstance(schema, dict):
        return JSON
    options = [JSON]
    types = schema.get("type", [])
    for kind in types if isinstance(types, list) else [types]:
        if kind == "string":
            if "pattern" in schema:
                options.append(st.from_regex(schema["pattern"]))
            low, high = schema.get("minLength", 0), schema.get("maxLength", 8)
            edges = {max(0, low - 1), low, high, high + 1}
            lengths = st.sampled_from(sorted(n for n in edges if n <= 2_000))  # a page body may be long
            options.append(lengths.flatmap(lambda n: st.text(min_size=n, max_size=n)))
        elif kind in ("integer", "number"):
            low, high = schema.get("minimum", -5), schema.get("maximum", 5)
            options += [st.integers(low - 2, high + 2), st.floats(low - 2, high + 2), st.booleans()]
            options.append(st.integers(low - 2, high + 2).map(float))  # integral floats
            options.append(st.integers(low - 2, high + 2).map(Decimal))
        elif kind == "array":
            options.append(st.lists(near(schema.get("items")), max_size=3))
        elif kind == "object":
            properties, required = schema.get("properties") or {}, schema.get("required") or []
            shaped = st.fixed_dictionaries(
                {k: near(properties.get(k)) for k in required},
                optional={k: near(v) for k, v in properties.items() if k not in required},
            )
            options.append(shaped)
            options.append(
                st.tuples(shaped, st.dictionaries(st.text(max_size=3), JSON, max_size=2)).map(
                    lambda pair: pair[1] | pair[0]
                )
            )
    return st.one_of(options)


def schemas() -> list:
    found = [pytest.param(_ENVELOPE_SCHEMA, id="execute-envelope")]
    for tool in registry._TOOLS.values():
        found += [
            pytest.param(tool.input_schema, id=f"{tool.key}-input"),
            pytest.param(tool.output_schema, id=f"{tool.key}-output"),
        ]
    return found


@pytest.mark.parametrize("schema", schemas())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_the_quick_check_calls_valid_jsonschema_calls_valid(schema, data):
    quick = quick_check(schema)
    if quick is None:
        return
    value = data.draw(near(schema))
    if quick(value):
        assert Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).is_valid(
            value
        )


def test_the_hub_scenarios_tool_and_the_envelope_are_checked_quickly():
    tool = registry._TOOLS["itdocs.configuration.get"]
    output = {"id": "5000", "name": "srv-01", "archived": False, "hostname": None, "status": "Active"}
    assert tool.input_check({"configuration_id": "5000"})
    assert tool.output_check(output)
    assert not tool.output_check(output | {"archived": "no"})
    assert quick_check(_ENVELOPE_SCHEMA)({"input": {}, "idempotency_key": "k-1", "dry_run": False})


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        pytest.param({"type": "integer"}, 3.0, True, id="an-integral-float-is-an-integer"),
        pytest.param({"type": "integer"}, True, False, id="a-boolean-is-not-an-integer"),
        pytest.param({"minimum": 0}, Decimal("-1"), False, id="a-decimal-below-the-minimum"),
        pytest.param(
            {"type": "object", "additionalProperties": False}, {"x": 1}, False, id="a-closed-object"
        ),
        pytest.param({"type": "string", "pattern": "^a"}, "ba", False, id="a-pattern"),
    ],
)
def test_when_the_quick_check_is_unsure_jsonschema_decides(schema, value, valid):
    validator = Draft202012Validator(schema)
    assert quick_check(schema)(value) is False
    assert (schema_errors(validator, value, prefix="", quick=quick_check(schema)) == []) is valid


def test_a_schema_with_another_keyword_gets_no_quick_check():
    assert quick_check({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}) is None
    assert quick_check({"type": "string", "format": "email"}) is None
