"""The API against its own OpenAPI document, fuzzed by schemathesis: every operation, bodies
generated from the schema (and beyond it), every response checked — no 5xx, each response matching
the documented status codes, content type and shape."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from governance.api.schema import document
from governance.services import tokens
from memory.tideline import Tideline

schema = schemathesis.openapi.from_dict(document())
pytestmark = pytest.mark.django_db


@pytest.fixture
def wsgi_app():
    """Django's WSGI app as a server runs it, except that a finished request must not close the
    test's database connection (Django's own test client unhooks the same signal)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def gateway(workspace):
    tl = Tideline(workspace, actor="seed")
    tl.add("I am allergic to peanuts", segment="identity")
    return tokens.create_token(workspace, name="fuzz", origin="owner", verbs="read,write", actor="test")[1]


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_keeps_its_contract(case, gateway, wsgi_app):
    response = case.call(app=wsgi_app, headers={"Authorization": f"Bearer {gateway}"})
    assert response.status_code < 500, response.text
    # The contract: never a 5xx, and every response documented (status, content type, headers, body).
    # Whether a refusal was right is asked per scope in tests/governance/api/test_api.py: a schema-valid
    # write may still be refused by the gates, which the schema cannot know.
    case.validate_response(response, checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                             response_headers_conformance, response_schema_conformance])
