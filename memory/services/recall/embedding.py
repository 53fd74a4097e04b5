"""The optional learned embedder: which one is configured, its stored vectors, and re-embedding.

Recall is model-free by default. With `TIDELINE_EMBEDDER=minilm` (and `pip install '.[embed]'`),
every new fact gets a sentence vector at write time, sealed under its origin's key and stamped with
the embedder's fingerprint (model and exact weights). Recall uses only vectors whose fingerprint
matches the embedder it runs with, so swapping models never mixes two vector spaces; `reembed`
brings a workspace's vectors to the current fingerprint.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory import sealing
from memory.models import Fact, FactVector, Workspace
from memory.services.errors import RequestError

EMBEDDERS = ("minilm",)
VECTOR_FIELD = "vector"  # the sealing context of a stored vector (content uses "content")
REEMBED_BATCH = 256

logger = logging.getLogger(__name__)
CONFIGURED = object()  # "the embedder the settings name"; callers may pass an embedder, or None for none
_loaded: dict[tuple[str, str], Any] = {}
_lock = threading.Lock()


class EmbedderNotAvailable(RequestError):
    """The configured embedder cannot run here (extra not installed, model folder missing)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="embedder_unavailable")


def load(name: str, path: str = "") -> Any:
    """The embedder called `name`, loaded once per process (the weights take a second to read)."""
    if name not in EMBEDDERS:
        raise RequestError(f"unknown embedder {name!r}; use one of: {', '.join(EMBEDDERS)}", kind="validation")
    key = (name, path)
    # The tokenizer's own thread pool warns (and can deadlock) in forked workers; ours batch anyway.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with _lock:
        if key not in _loaded:
            from memory.engine.recall.minilm import EmbedderUnavailable, MiniLmEmbedder

            try:
                _loaded[key] = MiniLmEmbedder(path) if path else MiniLmEmbedder.from_package()
            except EmbedderUnavailable as error:
                raise EmbedderNotAvailable(str(error)) from error
        return _loaded[key]


def configured() -> Any | None:
    """The embedder the settings ask for, or None when recall is model-free (the default)."""
    name = getattr(settings, "TIDELINE_EMBEDDER", "")
    return load(name, getattr(settings, "TIDELINE_EMBEDDER_PATH", "")) if name else None


def resolve(choice: Any) -> Any | None:
    """`choice` itself, or for `CONFIGURED` the configured embedder — None (model-free, with a warning)
    when it cannot load: reads and writes never fail for want of vectors. `manage.py check` and
    `tideline reembed` report the misconfiguration."""
    if choice is not CONFIGURED:
        return choice
    if not getattr(settings, "TIDELINE_EMBEDDER", ""):
        return None
    try:
        return configured()
    except RequestError as error:  # EmbedderNotAvailable, or an unknown embedder name
        logger.warning("learned embedder unavailable, recall and writes stay model-free: %s", error.message)
        return None


def seal_vector(workspace_id: int, origin_key: str, vector: np.ndarray) -> bytes:
    return sealing.seal(workspace_id, origin_key, VECTOR_FIELD, np.asarray(vector, dtype="<f2").tobytes())


def open_vector(unseal: Callable[[bytes], bytes], sealed: bytes) -> np.ndarray:
    return np.frombuffer(unseal(sealed), dtype="<f2").astype(np.float32)


def store_vectors(facts: list[Fact], embedder: Any) -> int:
    """Embed the facts' content and store (or replace) their vectors; returns how many were stored.

    Facts whose origin was shredded are skipped: there is no key to seal under, and nothing to recall.
    """
    facts = [f for f in facts if f.pk is not None]
    if not facts:
        return 0
    contents, keep = [], []
    for fact in facts:
        try:
            contents.append(fact.content)
        except sealing.KeyDestroyedError:
            continue
        keep.append(fact)
    if not keep:
        return 0
    vectors = embedder.embed(contents)
    now = timezone.now()
    rows = [
        FactVector(workspace_id=f.workspace_id, fact_id=f.pk, fingerprint=embedder.fingerprint, dims=vectors.shape[1],
                   sealed_vector=seal_vector(f.workspace_id, f.origin_key, v), created_at=now)
        for f, v in zip(keep, vectors, strict=True)
    ]  # fmt: skip
    with transaction.atomic():
        FactVector.objects.filter(fact_id__in=[f.pk for f in keep]).delete()
        FactVector.objects.bulk_create(rows)
    return len(rows)


def embed_new(facts: list[Fact], embedder: Any = CONFIGURED) -> int:
    """Vectors for facts just written, when there is an embedder (a no-op otherwise).

    A write never fails for want of a vector: if the configured embedder cannot load, the fact is
    kept without one (recall stays lexical for it) and `tideline reembed` fills it in later.
    """
    embedder = resolve(embedder) if facts else None
    return store_vectors(facts, embedder) if embedder is not None else 0


@dataclass(frozen=True)
class ReembedReport:
    fingerprint: str
    embedded: int
    already_current: int
    total: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def stale_facts(workspace: Workspace, fingerprint: str):
    """Facts without a vector of this fingerprint (never embedded, or by another embedder)."""
    current = FactVector.objects.filter(workspace=workspace, fingerprint=fingerprint).values("fact_id")
    return Fact.objects.filter(workspace=workspace).exclude(pk__in=current)


def embedded_count(workspace: Workspace, fingerprint: str) -> int:
    """How many facts of the workspace carry a vector of this fingerprint."""
    return FactVector.objects.filter(workspace=workspace, fingerprint=fingerprint).count()


def reembed(
    workspace: Workspace, *, actor: str, embedder: Any | None = None, batch_size: int = REEMBED_BATCH,
    progress: Callable[[int], None] | None = None,
) -> ReembedReport:  # fmt: skip
    """Give every fact of the workspace a vector from `embedder` (default: the configured one).

    Works in batches, each committed with one `reembedded` event naming its facts, so recall indexes
    in every process pick the new vectors up, and an interrupted run resumes where it stopped (the
    facts already done are current). Facts of a shredded origin are skipped.
    """
    from memory.services.mutation import mutate

    embedder = embedder if embedder is not None else configured()
    if embedder is None:
        raise RequestError("no embedder is configured: set TIDELINE_EMBEDDER=minilm (after pip install '.[embed]')",
                           kind="validation")  # fmt: skip
    if batch_size < 1:
        raise RequestError("--batch must be at least 1", kind="validation")
    total = Fact.objects.filter(workspace=workspace).count()
    pending = list(stale_facts(workspace, embedder.fingerprint).order_by("pk").values_list("pk", flat=True))
    done = 0
    for start in range(0, len(pending), batch_size):
        pks = pending[start : start + batch_size]
        with mutate(workspace, actor=actor) as m:
            facts = list(Fact.objects.filter(pk__in=pks).order_by("pk"))
            stored = store_vectors(facts, embedder)
            m.record("reembedded", fact_ids=[f.memory_id for f in facts], fingerprint=embedder.fingerprint,
                     vectors=stored)  # fmt: skip
        done += stored
        if progress is not None:
            progress(len(pks))
    return ReembedReport(embedder.fingerprint, done, total - len(pending), total)


def vectors_of(workspace_id: int, origin_key: str, memory_ids: Iterable[str] | None = None):
    """(memory id, fingerprint, vector) of stored vectors of one origin, optionally only some facts."""
    try:
        unseal = sealing.unsealer(workspace_id, origin_key, VECTOR_FIELD)
    except sealing.KeyDestroyedError:
        return
    rows = FactVector.objects.filter(workspace_id=workspace_id, fact__origin_key=origin_key)
    if memory_ids is None:
        chunks = [rows]
    else:  # a few thousand ids per query: a sync after a GC may name a million facts
        ids = list(memory_ids)
        chunks = [rows.filter(fact__memory_id__in=ids[i : i + IDS_PER_QUERY]) for i in range(0, len(ids), IDS_PER_QUERY)]
    for chunk in chunks:
        for memory_id, fingerprint, sealed in chunk.values_list("fact__memory_id", "fingerprint", "sealed_vector"):
            yield memory_id, fingerprint, open_vector(unseal, sealed)


IDS_PER_QUERY = 5000  # well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters
