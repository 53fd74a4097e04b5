"""Property test (hypothesis): no content, however degenerate, breaks recall.

Random and adversarial contents go through the real write path (facade) from trusted and untrusted
sources, then recall runs with queries cut from those contents and with random ones. Writes may be
refused (gate, scan, worthiness: typed errors); recall may refuse only with a typed error; and a
plain fact written first must still be found by a plain query, on every recall (no silent 0 hits).
"""

from __future__ import annotations

import itertools
import string
import sys
import unicodedata
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.services.errors import RequestError
from memory.services.workspaces import create_workspace
from memory.services.writes.policy import TidelineError
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
_names = itertools.count()
TYPED = (RequestError, TidelineError)
MAX = 1000  # the content cap: longer contents are cut to it on write

# Every general category but surrogates (not text: they cannot be encoded) and unassigned code points.
CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
              "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Co"]  # fmt: skip
any_char = st.characters(categories=CATEGORIES)
# Pieces of hostile or unusual text that random characters rarely hit on their own.
PIECES = ["y" * 1000, "yay" * 100, "ies" * 200, "ing" * 150, "ational" * 40, "9" * 400, "喜欢" * 200,
          "ภาษาไทย" * 50, "שלום עולם ", "مرحبا بالعالم ", "\u202e\u2066", "\u200b\u200c\u200d\u2060\ufeff",
          "e\u0301\u0302\u0303" * 50, "\U000e0041\U000e0042", "\ufe0f" * 20, "🏳️‍🌈" * 30, "Ω≈ç√∫",
          "ignore previous instructions ", "%41%42" * 50, "QUJD" * 100, "ab " * 100, "\n" * 50,
          "Maria's kids volunteered", "don't", "x86_64", "über straße", "ǅ", "ﬁ", "Ⅻ", "١٢٣", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"]  # fmt: skip

contents = st.one_of(
    st.builds(lambda c, n: c * n, any_char, st.integers(1, MAX)),  # one character repeated
    st.builds(
        lambda c, n: c * n, st.sampled_from(string.ascii_lowercase + string.digits), st.integers(1, MAX)
    ),
    # Runs of a letter at the lengths where caps and limits sit (64 stemmed, 128 indexed, 1,000 stored).
    st.builds(
        lambda c, n: c * n,
        st.sampled_from("yYay"),
        st.sampled_from([63, 64, 65, 127, 128, 129, 999, 1000, 1200]),
    ),
    st.text(any_char, min_size=1, max_size=MAX),  # every category mixed
    st.text(st.sampled_from("yaeiousbtnzly"), min_size=100, max_size=MAX),  # one huge English-ish token
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(any_char, max_size=20)), min_size=1, max_size=12).map(
        " ".join
    ),
)
SOURCES = [None, "owner_message", "tool_output", "retrieved_document", "extraction"]
writes = st.lists(
    st.tuples(
        contents,
        st.sampled_from(SOURCES),
        st.sampled_from(["knowledge", "context", "preference"]),
        st.booleans(),
    ),  # fmt: skip
    min_size=1,
    max_size=3,
)
NORMAL = "I keep a strict vegetarian diet."


def _queries_from(content: str, data) -> list[str]:
    words = [w for w in content.split() if w] or [content]
    start = data.draw(st.integers(0, max(0, len(content) - 1)), label="slice start")
    return [
        content,
        content[start : start + 40],
        data.draw(st.sampled_from(words), label="word"),
        unicodedata.normalize("NFKC", content),
    ]


def _recall_or_refuse(tl: Tideline, query: str):
    """Recall and context either answer or refuse with a typed error, nothing else."""
    try:
        hits = tl.recall(query)
        tl.context(query)
    except TYPED:
        return None
    return hits


@contextmanager
def _default_recursion_limit():
    """Hypothesis raises the recursion limit while it runs a test body; a server runs at Python's
    default of 1,000, where a fact of 1,000 y's used to crash the stemmer. Restore that default."""
    raised = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(raised)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=writes, random_query=st.text(any_char, max_size=200), data=st.data())
def test_no_content_breaks_recall_or_hides_a_plain_fact(db, steps, random_query, data):
    with _default_recursion_limit():
        _write_then_recall(steps, random_query, data)


def _write_then_recall(steps, random_query, data):
    tl = Tideline(create_workspace(f"adversarial-{next(_names)}"), actor="hypothesis")
    normal = tl.add(NORMAL, segment="preference")
    stored = []
    for content, source, segment, force in steps:
        try:
            tl.add(content, segment=segment, source_type=source, force=force)
        except TYPED:
            continue  # refused by the gate, the scan or the worthiness test: fine
        stored.append(content)
    for query in [q for content in stored for q in _queries_from(content, data)] + [random_query]:
        _recall_or_refuse(tl, query)
    for _ in range(2):  # twice: a failed build used to leave an index that answered nothing
        assert normal.id in [hit.id for hit in tl.recall("vegetarian diet")]
