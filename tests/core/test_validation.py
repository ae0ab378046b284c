"""`validated` keeps one bound input serializer per thread and class: each call sees only its own
input, context and `partial`, and gets its own result."""

from __future__ import annotations

import threading

import pytest
from rest_framework import serializers

from core.api.errors import RequestInvalid
from core.api.validation import validated


class Thing(serializers.Serializer):
    name = serializers.CharField(max_length=5)
    size = serializers.IntegerField(required=False)
    owner = serializers.CharField(required=False)

    def validate(self, attrs):
        if self.context.get("owner_required") and "owner" not in attrs:
            raise serializers.ValidationError({"owner": "An owner is required here."})
        return attrs


def test_a_call_does_not_see_the_previous_calls_input_or_result():
    first = validated(Thing, {"name": "a", "size": 1})
    second = validated(Thing, {"name": "b"})
    assert first == {"name": "a", "size": 1} and second == {"name": "b"}


def test_an_invalid_call_after_a_valid_one_fails_and_a_valid_one_after_it_passes():
    validated(Thing, {"name": "ok"})
    with pytest.raises(RequestInvalid) as failed:
        validated(Thing, {"name": "far too long"})
    assert [e.loc for e in failed.value.errors] == [("name",)]
    assert validated(Thing, {"name": "fine"}) == {"name": "fine"}


def test_context_and_partial_are_the_callers():
    with pytest.raises(RequestInvalid):
        validated(Thing, {"name": "x"}, context={"owner_required": True})
    assert validated(Thing, {"name": "x"}) == {"name": "x"}
    assert validated(Thing, {"size": 2}, partial=True) == {"size": 2}
    with pytest.raises(RequestInvalid):
        validated(Thing, {"size": 2})


def test_threads_validating_at_once_get_their_own_results():
    results, barrier = {}, threading.Barrier(8)

    def validate(n):
        barrier.wait()
        results[n] = [validated(Thing, {"name": f"n{n}", "size": n * 10 + i}) for i in range(200)]

    threads = [threading.Thread(target=validate, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(8):
        assert results[n] == [{"name": f"n{n}", "size": n * 10 + i} for i in range(200)]
