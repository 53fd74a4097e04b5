"""A refused console request is one line in the server log; a server error keeps its traceback."""

from __future__ import annotations

import logging

import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from django.utils.log import log_response

from tideline_site.log_filters import RefusalsInOneLine


def _formatted(status: int, exception: Exception) -> str:
    request = RequestFactory().get("/w/acme/purge/")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("django.request")
    handler = Keep()
    logger.addHandler(handler)
    try:
        from django.http import HttpResponse

        try:
            raise exception
        except Exception as error:  # noqa: BLE001
            log_response("refused: %s", request.path, response=HttpResponse(status=status), request=request,
                         exception=error)  # fmt: skip
    finally:
        logger.removeHandler(handler)
    [record] = records
    return logging.Formatter().format(record)


@pytest.mark.parametrize("status", [403, 404])
def test_a_refusal_is_one_line(status):
    text = _formatted(status, PermissionDenied("approvers cannot purge"))
    assert text == "refused: /w/acme/purge/"


def test_a_server_error_keeps_its_traceback():
    text = _formatted(500, RuntimeError("boom"))
    assert "Traceback" in text and "RuntimeError: boom" in text


def test_the_filter_is_wired_to_djangos_request_logger():
    assert any(isinstance(f, RefusalsInOneLine) for f in logging.getLogger("django.request").filters)
