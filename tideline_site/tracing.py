"""OpenTelemetry spans for what Tideline does (the optional `[otel]` extra: `pip install '.[otel]'`).

Each operation memory and governance announce (`tideline_kit.telemetry`) becomes a span named as the
operation (`memory.write`, `memory.recall`, `governance.verdict.decide`, …), nested as the calls
are, with the GenAI memory conventions where they name the same thing: `gen_ai.operation.name`
(`create_memory` for a write, `search_memory` for recall and context), `gen_ai.memory.store.id`
(the workspace id), `gen_ai.memory.record.count` (facts written or returned),
`gen_ai.retrieval.top_k` and `error.type`; everything else under `tideline.*` (the outcome, the
origin's kind, counts). Never content: the conventions' opt-in `gen_ai.memory.query.text` and
`gen_ai.memory.records` are never set, and the operation attributes cannot carry text longer than a
name (`tideline_kit.telemetry`).

Where spans go is the standard OpenTelemetry configuration's business: with the SDK installed and
`OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_TRACES_EXPORTER`) set, `install` sets up a tracer provider
with the OTLP exporter; an application that configured its own provider keeps it. Without the
`[otel]` extra nothing here runs. `TIDELINE_TRACES=0` turns spans off.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from django.conf import settings

from tideline_kit import telemetry

logger = logging.getLogger(__name__)

GEN_AI_OPERATIONS = {"memory.write": "create_memory", "memory.recall": "search_memory", "memory.context": "search_memory"}
SEMANTIC_NAMES = {"workspace_id": "gen_ai.memory.store.id", "records": "gen_ai.memory.record.count",
                  "k": "gen_ai.retrieval.top_k", "error.type": "error.type"}  # fmt: skip


class SpanObserver:
    def __init__(self, tracer) -> None:
        from opentelemetry import trace

        self.tracer = tracer
        self._trace = trace

    def started(self, op: telemetry.Operation) -> Any:
        span = self.tracer.start_span(op.name, kind=self._trace.SpanKind.INTERNAL)
        token = self._attach(span)
        return span, token

    def _attach(self, span):
        from opentelemetry import context

        return context.attach(self._trace.set_span_in_context(span))

    def finished(self, op: telemetry.Operation, handle: Any) -> None:
        if handle is None:
            return
        from opentelemetry import context

        span, token = handle
        span.set_attributes(span_attributes(op))
        if op.outcome == "error" or op.outcome.startswith("refused:"):
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, op.outcome))
        span.end()
        context.detach(token)


def span_attributes(op: telemetry.Operation) -> dict[str, Any]:
    out: dict[str, Any] = {"tideline.outcome": op.outcome}
    if op.name in GEN_AI_OPERATIONS:
        out["gen_ai.operation.name"] = GEN_AI_OPERATIONS[op.name]
        out["gen_ai.provider.name"] = "tideline"
    for key, value in op.attributes.items():
        name = SEMANTIC_NAMES.get(key, f"tideline.{key}")
        out[name] = str(value) if name == "gen_ai.memory.store.id" else value
    return out


_installed: SpanObserver | None = None


def install(tracer_provider=None) -> SpanObserver | None:
    """Start turning operations into spans, if OpenTelemetry is installed and traces are on."""
    global _installed
    if not getattr(settings, "TIDELINE_TRACES", True):
        return None
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    if tracer_provider is None:
        _configure_exporter(trace)
    tracer = (tracer_provider or trace.get_tracer_provider()).get_tracer("tideline")
    if _installed is not None:
        telemetry.stop_observing(_installed)
    _installed = SpanObserver(tracer)
    telemetry.observe(_installed)
    return _installed


def _configure_exporter(trace) -> None:
    """An OTLP exporter from the standard environment, unless a provider is set up already."""
    wanted = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not wanted or type(trace.get_tracer_provider()).__name__ != "ProxyTracerProvider":
        return
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        logger.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but the OTLP exporter is not installed: "
                       "pip install '.[otel]'")  # fmt: skip
        return
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "tideline")}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def uninstall() -> None:
    global _installed
    if _installed is not None:
        telemetry.stop_observing(_installed)
        _installed = None
