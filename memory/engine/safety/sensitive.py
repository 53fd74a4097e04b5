"""Personal data and secrets in a fact's text, found before anything is stored.

`scan(text)` returns what it finds as `Finding`s (a kind, a label people read, where it is, whether it
is a secret), never keeping the values: callers raise the classification for personal data and
replace or refuse secrets (`redact`).

Personal data (kinds, each checked beyond its shape where a check exists):
* `email`; `phone` (international `+CC` numbers anywhere, national ones next to a word such as
  "phone" or "mobile", both parsed and validated by Google's libphonenumber);
* `payment_card` (13–19 digits of a known card network passing the Luhn check); `iban` (the
  ISO 13616 checksum); `bank_routing` (US ABA numbers next to "routing");
* `national_id`: a national or tax identifier named as such ("SSN", "BSN", "CPF", "Aadhaar", …)
  next to a number that passes that country's checksum (python-stdnum); a US SSN in its dashed form
  needs no name; `passport`: a passport number next to the word;
* `date_of_birth`: a full date said to be one's birth date; `street_address`: a house number with a
  street name and type ("221B Baker Street", "Rua Augusta 274").

Secrets: the named-provider detectors of Yelp's detect-secrets (AWS, GitHub, GitLab, Slack, Stripe,
JWT, private keys, credentials in URLs, keyword assignments, …), plus rules for what it misses:
newer API key formats (OpenAI, Anthropic, Google), `NAME=value` configuration lines whose name says
secret, and a password stated in words ("my password is …").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

PERSONAL = {
    "email": "e-mail address", "phone": "phone number", "payment_card": "payment card number", "iban": "IBAN",
    "bank_routing": "bank routing number", "national_id": "national identifier", "passport": "passport number",
    "date_of_birth": "date of birth", "street_address": "street address",
}  # fmt: skip
SECRETS = {
    "aws_access_key": "AWS access key", "github_token": "GitHub token", "gitlab_token": "GitLab token",
    "slack_token": "Slack token", "stripe_key": "Stripe key", "jwt": "JSON web token", "private_key": "private key",
    "url_credentials": "credentials in a URL", "secret_assignment": "secret value",
    "openai_key": "OpenAI API key", "anthropic_key": "Anthropic API key", "google_api_key": "Google API key",
    "password": "password", "api_token": "API token",
}  # fmt: skip
LABELS = {**PERSONAL, **SECRETS}
GENERIC = frozenset({"secret_assignment", "password", "api_token"})


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int

    @property
    def secret(self) -> bool:
        return self.kind in SECRETS

    @property
    def label(self) -> str:
        return LABELS[self.kind]


# ---------------------------------------------------------------- personal data

EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b")
PHONE_WORDS = re.compile(r"\b(?:phone|mobile|mob|cell(?:phone)?|tel(?:ephone)?|call|calls|ring|dial|reach|contact|text|sms|"
                         r"whats ?app|signal|number|nr|no|fax|landline|hotline|ext|telemóvel|telemovel|telefone|teléfono|"
                         r"telefono|handy|numéro|numero|tlf)\b", re.I)  # fmt: skip
PHONE_REGIONS = ("US", "GB", "DE", "FR", "PT", "ES", "IT", "NL", "BR", "IN", "AU", "CA", "NG")
CARD = re.compile(r"(?<![\w.-])(?:\d[ -]?){13,18}\d(?![\w-])")
CARD_GROUPS = {(16,), (15,), (14,), (19,), (4, 4, 4, 4), (4, 6, 5), (4, 6, 4), (4, 4, 4, 4, 3)}  # as cards are printed
CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2)|35)")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
ROUTING = re.compile(r"\brouting\b[^\d\n]{0,30}(\d{9})\b", re.I)
SSN_DASHED = re.compile(r"(?<![\d-])(\d{3}-\d{2}-\d{4})(?![\d-])")
PASSPORT = re.compile(r"\bpassport\b(?:\s+(?:no\.?|number|#|num\.?|is|:))*[\s:#]*([A-Z0-9]{6,9})\b", re.I)
ID_NAMES = {
    "us.ssn": r"ssn|social security(?: number)?", "nl.bsn": r"bsn|burgerservicenummer", "br.cpf": r"cpf",
    "in_.aadhaar": r"aadhaar", "es.dni": r"dni", "es.nie": r"nie", "pt.nif": r"nif|contribuinte",
    "pt.cc": r"cart[ãa]o de cidad[ãa]o", "fr.nir": r"nir|num[ée]ro de s[ée]curit[ée] sociale",
    "se.personnummer": r"personnummer", "pl.pesel": r"pesel", "it.codicefiscale": r"codice fiscale",
    "de.idnr": r"steuer-?id(?:nr)?|steueridentifikationsnummer", "ca.sin": r"sin|social insurance(?: number)?",
    "au.tfn": r"tfn|tax file number", "dk.cpr": r"cpr", "no.fodselsnummer": r"f[øo]dselsnummer", "fi.hetu": r"hetu",
}  # fmt: skip
ID_VALUE = r"[\s:#]*(?:no\.?|number|is|:)?[\s:#]*([A-Z0-9][A-Z0-9 .\-/]{5,20}[A-Z0-9])"
DATE = (r"(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{1,2}(?:st|nd|rd|th)? (?:of )?[A-Z][a-z]{2,8},? \d{4}|"
        r"[A-Z][a-z]{2,8} \d{1,2}(?:st|nd|rd|th)?,? \d{4})")  # fmt: skip
DOB = re.compile(rf"\b(?:born(?: on)?|date of birth|d\.?o\.?b\.?|birth ?date|birthday(?: is)?)\b[\s:,-]*(?:is|was|on)?\s*({DATE})",
                 re.I)  # fmt: skip
STREET_TYPES = (r"Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Court|Ct\.?|"
                r"Place|Pl\.?|Way|Terrace|Close|Crescent|Square|Sq\.?|Highway|Hwy\.?|Parkway|Pkwy\.?")  # fmt: skip
STREET = re.compile(rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][a-zà-ÿ'’-]+\s+){{1,4}}(?:{STREET_TYPES})(?![A-Za-z])")
STREET_FIRST = re.compile(r"\b(?:Rua|Avenida|Av\.|Calle|Carrer|Via|Viale|Rue|Boulevard|Chemin|Straße|Strasse|Weg|Laan|"
                          r"Gasse|Platz|Praça|Plaza)\s+(?:[A-Za-zÀ-ÿ'’.-]+\s+){1,5}\d{1,4}[A-Za-z]?\b")  # fmt: skip
STREET_SUFFIX = re.compile(r"\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|weg|gasse|platz|allee|laan|straat|gade|vej|gatan)\s+"
                           r"\d{1,4}[a-z]?\b")  # fmt: skip


ID_HINT = re.compile(r"\b(?:" + "|".join(ID_NAMES.values()) + r")\b", re.I)


@cache
def _id_patterns() -> list[tuple[re.Pattern, object]]:
    import importlib

    out = []
    for module_name, names in ID_NAMES.items():
        module = importlib.import_module(f"stdnum.{module_name}")
        out.append((re.compile(rf"\b(?:{names})\b{ID_VALUE}", re.I), module))
    return out


def _personal(text: str) -> Iterable[Finding]:
    if "@" in text:
        for match in EMAIL.finditer(text):
            yield Finding("email", match.start(), match.end())
    if not any(ch.isdigit() for ch in text):
        return  # every other kind holds a number
    yield from _phones(text)
    for match in CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        groups = tuple(len(part) for part in re.split(r"[ -]", match.group()))
        if (groups in CARD_GROUPS and CARD_PREFIX.match(digits) and _luhn(digits) and len(set(digits)) > 1
                and len({sep for sep in match.group() if not sep.isdigit()}) <= 1):  # fmt: skip
            yield Finding("payment_card", match.start(), match.end())
    for match in IBAN.finditer(text):
        from stdnum import iban

        if _iban_valid(iban, match.group()):
            yield Finding("iban", match.start(), match.end())
    for match in ROUTING.finditer(text):
        if _aba(match.group(1)):
            yield Finding("bank_routing", match.start(1), match.end(1))
    for match in SSN_DASHED.finditer(text):
        from stdnum.us import ssn

        if ssn.is_valid(match.group(1)):
            yield Finding("national_id", match.start(1), match.end(1))
    for pattern, module in _id_patterns() if ID_HINT.search(text) else ():
        for match in pattern.finditer(text):
            value = match.group(1)
            for candidate in _shrinking(value):
                if module.is_valid(candidate):
                    yield Finding("national_id", match.start(1), match.start(1) + len(candidate))
                    break
    for match in PASSPORT.finditer(text):
        if any(ch.isdigit() for ch in match.group(1)):
            yield Finding("passport", match.start(1), match.end(1))
    for match in DOB.finditer(text):
        yield Finding("date_of_birth", match.start(1), match.end(1))
    for pattern in (STREET, STREET_FIRST, STREET_SUFFIX):
        for match in pattern.finditer(text):
            yield Finding("street_address", match.start(), match.end())


def _iban_valid(module, value: str) -> bool:
    """The ISO 13616 check (mod 97) and the country's length; the national check digits some countries
    add are not required (the ISO check already makes a random match a 1-in-97 chance)."""
    try:
        module.validate(value, check_country=False)
    except Exception:  # noqa: BLE001 — stdnum raises its own ValidationError subclasses
        return False
    return True


def _shrinking(value: str) -> Iterable[str]:
    """The value, then without trailing words (an identifier followed by more text)."""
    value = value.strip(" .-/")
    yield value
    parts = value.split(" ")
    for end in range(len(parts) - 1, 0, -1):
        yield " ".join(parts[:end]).strip(" .-/")


def _phones(text: str) -> Iterable[Finding]:
    import phonenumbers

    seen: set[tuple[int, int]] = set()
    regions = (None, *PHONE_REGIONS) if PHONE_WORDS.search(text) else (None,)
    for region in regions:
        if region is None and "+" not in text:
            continue
        for match in phonenumbers.PhoneNumberMatcher(text, region or "ZZ", leniency=phonenumbers.Leniency.VALID):
            span = (match.start, match.end)
            # A national number shorter than 7 digits is a service or short code (Germany's 1640), and
            # reads like any count or id: "Fact number 1640".
            if len(str(match.number.national_number)) < 7:
                continue
            if span not in seen:
                seen.add(span)
                yield Finding("phone", *span)


def _luhn(digits: str) -> bool:
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _aba(digits: str) -> bool:
    weights = (3, 7, 1) * 3
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 10 == 0


# ---------------------------------------------------------------- secrets

DETECT_SECRETS_KINDS = {
    "AWS Access Key": "aws_access_key", "GitHub Token": "github_token", "GitLab Token": "gitlab_token",
    "Slack Token": "slack_token", "Stripe Access Key": "stripe_key", "JSON Web Token": "jwt", "Private Key": "private_key",
    "Basic Auth Credentials": "url_credentials", "Secret Keyword": "secret_assignment", "OpenAI Token": "openai_key",
    "Artifactory Credentials": "api_token", "Azure Storage Account access key": "api_token",
    "Cloudant Credentials": "api_token", "Discord Bot Token": "api_token", "IBM Cloud IAM Key": "api_token",
    "IBM COS HMAC Credentials": "api_token", "Mailchimp Access Key": "api_token", "NPM tokens": "api_token",
    "PyPI Token": "api_token", "SendGrid API Key": "api_token", "SoftLayer Credentials": "api_token",
    "Square OAuth Secret": "api_token", "Telegram Bot Token": "api_token", "Twilio API Key": "api_token",
}  # fmt: skip
OWN_SECRETS = [
    ("openai_key", re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}\b")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{32,}\b")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("gitlab_token", re.compile(r"\bgl(?:pat|dt|rt|ptt|cbt)-[0-9A-Za-z_-]{20,}(?![0-9A-Za-z_-])")),
    # Other providers' tokens, each by its fixed prefix: npm, PyPI, SendGrid, Slack (bot, app, user),
    # Hugging Face, Shopify, DigitalOcean, Databricks, Grafana, Linear, Notion, Mailgun, Facebook, age.
    ("api_token", re.compile(r"\b(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|"
                             r"xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{20,}|hf_[A-Za-z0-9]{30,}|"
                             r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}|dapi[a-f0-9]{32}|glsa_[A-Za-z0-9_]{32,}|"
                             r"lin_api_[A-Za-z0-9]{40}|ntn_[A-Za-z0-9]{40,}|key-[0-9a-f]{32}|EAA[A-Za-z0-9]{80,}|"
                             r"AGE-SECRET-KEY-1[0-9A-Z]{58})(?![A-Za-z0-9_-])")),  # fmt: skip
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("private_key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*"
                               r"PRIVATE KEY(?: BLOCK)?-----)?")),  # fmt: skip
    # Credentials in a URL: any password for a database, broker, mail, file or web server; for other
    # schemes (fsspec's github://org:repo@ref, say) one that has a digit, capital or sign, or 6+ characters.
    ("url_credentials", re.compile(r"\b(?:postgres(?:ql)?|mysql|mariadb|mssql|sqlserver|oracle|mongodb(?:\+srv)?|redis|"
                                   r"rediss|amqps?|kafka|nats|ftps?|sftp|ssh|smtps?|imaps?|pop3s?|ldaps?|https?|jdbc:\w+)"
                                   r"://[^\s:/@]{1,64}:([^\s@/]{1,128})@[^\s/]", re.I)),  # fmt: skip
    ("url_credentials", re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,64}:((?=[^\s@/]*[^a-z\s@/])[^\s@/]{4,128}|"
                                   r"[^\s@/]{6,128})@[^\s/]")),  # fmt: skip
]
SECRET_NAME = (r"(?:[A-Za-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|"
               r"private[_-]?key|client[_-]?secret|auth)(?:[_-][A-Za-z0-9]+)*")  # fmt: skip
ASSIGNMENT = re.compile(rf"\b({SECRET_NAME})\s*[:=]\s*(?:'([^'\n]{{4,}})'|\"([^\"\n]{{4,}})\"|([^\s'\"]{{6,}}))", re.I)
# A long random-looking string said to be a key, secret, token or credential ("the secret key is
# wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "token: 9f8a…"): no provider prefix, so only its
# randomness and the word before it tell.
NAMED_RANDOM = re.compile(r"\b(?:key|keys|secret|token|credential|credentials|passphrase)\b[^\n.;]{0,24}?(?:[:=]|\bis\b|\bwas\b)?"
                          r"\s*['\"]?([A-Za-z0-9/+_=-]{16,256})", re.I)  # fmt: skip
SPOKEN_PASSWORD = re.compile(r"\b(?:password|passcode|passphrase|pin(?: code)?|wi-?fi (?:password|key))\b(?: for [\w .'-]{1,40})?"
                             r"\s+(?:is|was|=|:)\s*['\"“]?([^\s'\"”]{4,64})", re.I)  # fmt: skip
NOT_A_VALUE = re.compile(r"^(?:\*+|x+|<[^>]*>|\.{3}|none|null|true|false|redacted|required|optional|hidden|secret|password|"
                         r"same|the|a|an|my|our|set|not|in|stored|saved|printed|shown|given|sent|written|on|at)$", re.I)  # fmt: skip
# A placeholder, a reference or code, not a value: `sk_test_replace_me`, `${TOKEN}`, `var.secret`,
# `os.environ["KEY"]`, `/run/secrets/db_password`, a link ("reset your password: https://…").
NOT_A_SECRET = re.compile(r"replace[_-]?me|change[_-]?me|your[_-]|dummy|placeholder|xxxx|<|>|\{|\}|\$|\(|\[|"
                          r"^(?:var|env|self|settings|config|os|process|base64|secrets)\.|^[/~.]|^(?:https?://|www\.)|"
                          # a date or a time: when a password was changed, not the password
                          r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$|"
                          # the name of the environment variable that holds it: APP_SECRET_KEY
                          r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$",
                          re.I)  # fmt: skip


def _looks_secret(value: str, *, quoted: bool = False) -> bool:
    """A value that could be a password or key: no placeholder or code, and not a plain word unless quoted."""
    if NOT_A_VALUE.match(value) or NOT_A_SECRET.search(value):
        return False
    mixed = any(ch.isdigit() for ch in value) or any(not ch.isalnum() for ch in value) or (
        any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value))
    return quoted or mixed


@cache
def _plugins():
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return [(DETECT_SECRETS_KINDS[name], cls()) for name, cls in get_mapping_from_secret_type_to_class().items()
            if name in DETECT_SECRETS_KINDS]  # fmt: skip


# Every secret kind has one of these; most facts have none, and skip the detectors.
SECRET_HINT = re.compile(r"[A-Za-z0-9_/+=.-]{20,}|://|-----BEGIN|key|token|secret|pass|pwd|auth|pin|bearer|credential",
                         re.I)  # fmt: skip


def _secrets(text: str) -> Iterable[Finding]:
    if not SECRET_HINT.search(text):
        return
    offset = 0
    for line in text.splitlines(keepends=True):
        for kind, plugin in _plugins():
            for found in plugin.analyze_line(filename="memory", line=line, line_number=1):
                value = found.secret_value or ""
                at = line.find(value) if value else -1
                if kind in ("url_credentials", "secret_assignment") and not _looks_secret(value, quoted=True):
                    continue  # a placeholder or a reference: postgres://user:password@localhost, ${TOKEN}
                if at >= 0 and len(value) >= 8:
                    yield Finding(kind, offset + at, offset + at + len(value))
        offset += len(line)
    for kind, pattern in OWN_SECRETS:
        for match in pattern.finditer(text):
            start, end = match.span(match.lastindex or 0)
            if kind == "url_credentials" and (NOT_A_VALUE.match(text[start:end]) or NOT_A_SECRET.search(text[start:end])):
                continue  # postgres://user:password@localhost in an .env.example
            yield Finding(kind, start, end)
    for match in ASSIGNMENT.finditer(text):
        group = next(index for index in (2, 3, 4) if match.group(index) is not None)
        value = match.group(group).rstrip(".,;)") if group == 4 else match.group(group)
        name = match.group(1).lower()
        if name.endswith(("_file", "_path", "_dir", "_url", "_name", "_id", "_at", "_date", "_change", "_changed", "_expires",
                          "_expiry", "_policy", "_length", "_hint", "_enabled", "_required", "_age", "_env", "_var", "_variable")):
            continue  # names a file, a path or an id of a secret, or when it changes and how: not the secret
        if _looks_secret(value, quoted=group != 4) and (_entropy(value) >= 2.5 or "pass" in name or "pwd" in name):
            yield Finding("secret_assignment", match.start(group), match.start(group) + len(value))
    for match in NAMED_RANDOM.finditer(text):
        value = match.group(1).rstrip("=")
        public = "public" in text[max(0, match.start() - 40) : match.start(1)].lower()  # a public key is no secret
        if not public and _random_looking(value) and not NOT_A_SECRET.search(value):
            yield Finding("secret_assignment", match.start(1), match.start(1) + len(match.group(1)))
    for match in SPOKEN_PASSWORD.finditer(text):
        value = match.group(1).rstrip(".,;)!")
        pin = match.group(0).lower().lstrip().startswith("pin")
        quoted = match.group(0).rstrip()[-len(value) - 1 : -len(value)] in ("'", '"', "“")
        if len(value) >= 4 and _looks_secret(value, quoted=quoted) and (not pin or any(ch.isdigit() for ch in value)):
            yield Finding("password", match.start(1), match.start(1) + len(value))


def _random_looking(value: str) -> bool:
    """Letters and digits mixed the way generated keys are, not a word, a date or a hex commit id."""
    has_digit = any(ch.isdigit() for ch in value)
    has_upper, has_lower = any(ch.isupper() for ch in value), any(ch.islower() for ch in value)
    if not (has_digit and (has_upper or has_lower)):
        return False
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", value):  # a git commit or a sha256: named, not secret
        return False
    return _entropy(value) >= 3.5 and (has_upper and has_lower or len(value) >= 24)


def _entropy(value: str) -> float:
    counts = {ch: value.count(ch) for ch in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# ---------------------------------------------------------------- together


def scan(text: str) -> list[Finding]:
    """Everything found, in order, without overlaps (a secret wins over personal data it covers)."""
    if not text:
        return []
    # At one place, a secret before personal data, a named provider before a generic rule, the longer first.
    found = sorted({*_secrets(text), *_personal(text)},
                   key=lambda f: (f.start, not f.secret, f.kind in GENERIC, -(f.end - f.start), f.kind))  # fmt: skip
    kept: list[Finding] = []
    for finding in found:
        if kept and finding.start < kept[-1].end:
            if finding.secret and not kept[-1].secret:
                kept[-1] = finding
            elif finding.end > kept[-1].end and finding.secret == kept[-1].secret:
                kept[-1] = Finding(kept[-1].kind, kept[-1].start, finding.end)
            continue
        kept.append(finding)
    return kept


def kinds(findings: Iterable[Finding]) -> list[str]:
    """The kinds found, each once, in a fixed order."""
    present = {f.kind for f in findings}
    return [kind for kind in LABELS if kind in present]


def redact(text: str, findings: Iterable[Finding]) -> str:
    """`text` with every secret replaced by a placeholder naming its kind: `[secret: AWS access key]`."""
    out, last = [], 0
    for finding in sorted((f for f in findings if f.secret), key=lambda f: f.start):
        if finding.start < last:
            continue
        out.append(text[last:finding.start])
        out.append(f"[secret: {finding.label}]")
        last = finding.end
    out.append(text[last:])
    return "".join(out)


PLACEHOLDER = re.compile(r"\[secret: ([^\]\n]{1,60})\]")


def stored_labels(text: str) -> list[str]:
    """What a stored fact's text holds, for people to see: the personal data found in it and the secrets
    its placeholders name (labels only, each once)."""
    labels = [f.label for f in scan(text) if not f.secret]
    labels += [f"secret replaced: {name}" for name in PLACEHOLDER.findall(text)]
    return list(dict.fromkeys(labels))
