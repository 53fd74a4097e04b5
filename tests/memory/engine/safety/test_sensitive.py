"""Personal data and secrets found in text (memory/engine/safety/sensitive.py): each kind in the formats
people write it, checked beyond its shape; ordinary sentences untouched; secrets replaced by a
placeholder that names only their kind."""

from __future__ import annotations

import pytest

from memory.engine.safety import sensitive as S

FOUND = [
    ("My e-mail is maya.okafor@example.org, write any time.", "email"),
    ("Call me on +351 912 345 678 after six.", "phone"),
    ("My mobile is (415) 555-2671.", "phone"),
    ("Her number is +44 20 7946 0958.", "phone"),
    ("My card is 4111 1111 1111 1111, expiring 12/29.", "payment_card"),
    ("Pay with 5555-5555-5555-4444 please.", "payment_card"),
    ("My IBAN is PT50 0002 0123 1234 5678 9015 4.", "iban"),
    ("Rent goes to DE89370400440532013000 every month.", "iban"),
    ("The routing number is 021000021.", "bank_routing"),
    ("My SSN is 123-45-6789.", "national_id"),
    ("BSN 111222333 is on the letter.", "national_id"),
    ("Her CPF is 390.533.447-05.", "national_id"),
    ("My passport number is X1234567.", "passport"),
    ("I was born on 3 March 1991.", "date_of_birth"),
    ("Date of birth: 1991-03-03.", "date_of_birth"),
    ("I live at 221B Baker Street, London.", "street_address"),
    ("The office is at Rua Augusta 274 in Lisbon.", "street_address"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "secret_assignment"),
    ("The deploy key is AKIAIOSFODNN7EXAMPLE.", "aws_access_key"),
    ("my github token is ghp_1234567890abcdefghijklmnopqrstuvwxyz12", "github_token"),
    ("Slack bot: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "slack_token"),
    ("Stripe live key sk_live_4eC39HqLyjWDarjtT1zdp7dc for billing.", "stripe_key"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN", "openai_key"),
    ("Use sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD for the bot.", "anthropic_key"),
    ("Maps key AIzaSyA1234567890abcdefghijklmnopqrstuv in the app.", "google_api_key"),
    ("The session is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "jwt"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\n-----END RSA PRIVATE KEY-----", "private_key"),
    ("DATABASE_URL=postgres://admin:S3cretPassw0rd@db.example.com:5432/prod", "url_credentials"),
    ("my password is hunter2", "password"),
    ("The wifi password is Tr0ub4dor&3.", "password"),
    ("db_password: 'correct horse battery'", "secret_assignment"),
]
ORDINARY = [
    "I live in Porto and like green tea.", "The secret to good bread is patience.",
    "My token of appreciation was a book.", "I was born in Lagos in 1991.", "The meeting is on 2026-03-04 at 10:00.",
    "We moved 3 servers to the new rack.", "Port 5433 is staging.", "The password is required for login.",
    "Ana's birthday is in June.", "The key to the shed is under the third stone.", "Order 1234567890 shipped today.",
    "The build took 4096 seconds.", "The commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it.",
    "See https://docs.python.org/3/library/re.html for the syntax.", "Call the dentist on Monday.",
    "The pin on the map marks the harbour.", "Version 2.14.1 of the library added it.",
]


@pytest.mark.parametrize(("text", "kind"), FOUND)
def test_each_kind_is_found_in_the_formats_people_write(text, kind):
    assert kind in S.kinds(S.scan(text)), S.scan(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_sentences_are_left_alone(text):
    assert S.scan(text) == []


def test_shapes_that_fail_their_check_are_not_personal_data():
    assert S.scan("My card is 4111 1111 1111 1112.") == []  # Luhn fails
    assert S.scan("My IBAN is PT50 0002 0123 1234 5678 9015 5.") == []  # checksum fails
    assert S.scan("My BSN is 111222334.") == []


@pytest.mark.parametrize(("text", "kind"), [case for case in FOUND if case[1] in S.SECRETS])
def test_a_secret_is_replaced_by_its_kind_and_nothing_of_it_stays(text, kind):
    findings = S.scan(text)
    redacted = S.redact(text, findings)
    assert f"[secret: {S.LABELS[kind]}]" in redacted
    for finding in findings:
        if finding.secret:
            assert text[finding.start:finding.end] not in redacted


def test_personal_data_is_kept_in_the_text_and_only_named():
    text = "Write to maya.okafor@example.org or call +351 912 345 678."
    findings = S.scan(text)
    assert S.redact(text, findings) == text
    assert [(f.kind, f.label, f.secret) for f in findings] == [("email", "e-mail address", False),
                                                               ("phone", "phone number", False)]  # fmt: skip
