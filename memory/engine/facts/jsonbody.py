"""JSON from outside (an API body, a console form field, an uploaded file) read with a bound on its
nesting. Pure: no Django.

`json.loads` recurses once per level: 50,000 nested brackets (well under any size limit) raise a
`RecursionError`, which is not a `ValueError` and so escaped every `except ValueError` as a 500. And a
value nested just under the interpreter's limit still breaks whatever walks it recursively later
(repr, serialisers). No body or form Tideline takes nests deeper than a few levels, so anything
deeper than MAX_DEPTH is refused here, as a `ValueError` that says so.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


class JsonTooDeep(ValueError):
    """JSON nested deeper than the reader takes."""


def depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (a scalar is 0, `[]` is 1); iterative."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        pending.extend((child, level + 1) for child in children)
    return deepest


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, refusing (JsonTooDeep) lists and objects nested deeper than `max_depth`; other
    malformed JSON raises json's own ValueError."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise JsonTooDeep(f"the JSON is nested too deeply (at most {max_depth} levels of lists and objects)") from error
    levels = depth(value)
    if levels > max_depth:
        raise JsonTooDeep(f"the JSON nests {levels} levels of lists and objects; at most {max_depth} are taken")
    return value
