"""The one judgement of untrusted text, for the write path and recall's rescan alike (ENGINE-SPEC §2.1, Decision 18).

Model-free (the default install) it is exactly `judge_untrusted`: the rules, the learned word list of
`memory.engine.safety.directive_lexicon` (fitted on the project's own corpus; `TIDELINE_DIRECTIVE_WORDING =
False` turns it off) and the injection detector of `memory.engine.safety.detector` (a linear model over
words and letter runs fitted on many sources, shipped as a file; `TIDELINE_INJECTION_DETECTOR = False` turns
it off). No language model either way. With the learned embedder
configured and loadable (`TIDELINE_EMBEDDER=minilm`, the `embed` extra), the shipped directive
classifier is combined with the rules (`memory.engine.safety.directive_classifier.combine`): it may add a
hold named `learned_directive`, never remove one. A classifier that cannot be used here (weights
file missing, or trained in another embedder's vector space) is skipped with one logged warning:
the rules still judge, and nothing fails for want of the classifier.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from django.conf import settings

from memory.engine.safety import detector as injection_detector
from memory.engine.safety import directive_classifier as dc
from memory.engine.safety.directives import Verdict, judge_untrusted
from memory.services.errors import RequestError
from memory.services.recall import embedding

logger = logging.getLogger(__name__)
CACHE_SIZE = 4096
_warned: set[str] = set()
_lock = threading.Lock()


def judge(content: str) -> Verdict:
    """What the write path does with untrusted `content`, and what recall's rescan shows for it."""
    return _judged(content, learned(), bool(getattr(settings, "TIDELINE_DIRECTIVE_WORDING", True)), detector_on())


def detector_on() -> bool:
    return bool(getattr(settings, "TIDELINE_INJECTION_DETECTOR", True))


# The verdict depends on the content and the classifier in use alone, and recall rejudges the same
# facts query after query (embedding each costs milliseconds): remembered, bounded.
@lru_cache(maxsize=CACHE_SIZE)
def _judged(content: str, model: tuple[Any, dc.Classifier] | None, wording: bool = True, detector: bool = True) -> Verdict:
    verdict = judge_untrusted(content, wording=wording, detector=injection_detector.shipped() if detector else None)
    if model is None or verdict.action != "allow":  # the rules' holds and refusals stand as they are
        return verdict
    embedder, classifier = model
    return dc.combine(verdict, dc.probability(embedder.embed([content])[0], classifier), classifier)


def learned() -> tuple[Any, dc.Classifier] | None:
    """(embedder, classifier) when the learned check runs here, else None (model-free)."""
    name = getattr(settings, "TIDELINE_EMBEDDER", "")
    if not name:
        return None
    try:
        embedder = embedding.configured()
    except RequestError as error:  # extra not installed, model folder missing, unknown name
        _warn_once(f"embedder:{error.message}", "learned embedder unavailable, untrusted text is judged by the "
                   "rules alone: %s", error.message)  # fmt: skip
        return None
    classifier = _classifier()
    if classifier is None:
        return None
    if classifier.fingerprint != embedder.fingerprint:
        _warn_once(f"fingerprint:{embedder.fingerprint}", "the directive classifier was trained on %s vectors, "
                   "not %s; untrusted text is judged by the rules alone (retrain: python -m "
                   "bench.training.train_directive_classifier)", classifier.fingerprint, embedder.fingerprint)  # fmt: skip
        return None
    return embedder, classifier


@lru_cache(maxsize=1)
def _classifier() -> dc.Classifier | None:
    try:
        return dc.load_weights()
    except dc.ClassifierUnavailable as error:
        _warn_once("weights", "directive classifier unavailable, untrusted text is judged by the rules alone: %s",
                   error)  # fmt: skip
        return None


def _warn_once(key: str, message: str, *args: object) -> None:
    """One warning per cause per process, not one per write or recalled fact."""
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    logger.warning(message, *args)


def clear_caches() -> None:
    """Forget verdicts, the loaded classifier and the warnings given (tests; a retrained weights file)."""
    _judged.cache_clear()
    _classifier.cache_clear()
    with _lock:
        _warned.clear()
