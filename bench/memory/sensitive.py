"""How well the write path's personal-data and secret detector catches what it should and leaves the rest.

    python -m bench.memory.sensitive [--per-kind 200] [--seed 7] [--json]

Positives are generated from the published formats of each kind (random values, so no sample repeats
one the rules were written from): e-mail addresses; phone numbers of 30 regions from libphonenumber's
own example numbers with their digits varied, written in international format (and in national
format after the word "phone"); Luhn-valid card numbers of five networks; IBANs of eight countries
with their check digits computed; and the secrets of a dozen providers (AWS, GitHub, GitLab, Slack,
Stripe, OpenAI, Anthropic, Google, JWTs, private keys, SendGrid, npm), credentials in connection
URLs and secret configuration lines. Each is set inside one of several sentences.

Negatives are text nobody wrote for this: the facts of `../shared/data` (LoCoMo dev conversations and
the Tideline gold sets) and the benign texts of the public injection corpus's documentation and
multilingual sources (`bench/data/injection_sources`). What a negative is flagged for is listed, so a
reader can judge whether it was a false alarm (a documentation page's contact address is a real
e-mail address).
"""

from __future__ import annotations

import argparse
import base64
import glob
import json
import os
import random
import statistics
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
SENTENCES = ["My {label} is {value}.", "Please use {value} for it.", "{value}", "Note for later: {value} (from the setup call)",
             "The {label}: {value}", "Remember {value} please"]  # fmt: skip
REGIONS = ["US", "GB", "DE", "FR", "PT", "ES", "IT", "NL", "BE", "CH", "AT", "SE", "NO", "DK", "FI", "PL", "IE", "BR",
           "MX", "AR", "IN", "AU", "NZ", "CA", "JP", "KR", "SG", "ZA", "NG", "KE"]  # fmt: skip
IBAN_BBAN = {"DE": "n18", "FR": "n10c11n2", "GB": "a4n14", "PT": "n21", "ES": "n20", "NL": "a4n10", "IT": "a1n10c12",
             "BE": "n12"}  # fmt: skip


def _chars(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _luhn_complete(rng, prefix: str, length: int) -> str:
    body = prefix + _chars(rng, string.digits, length - len(prefix) - 1)
    total = 0
    for index, ch in enumerate(reversed(body)):
        value = int(ch) * (1 if index % 2 else 2)
        total += value - 9 if value > 9 else value
    return body + str((10 - total % 10) % 10)


def _iban(rng, country: str) -> str:
    spec = IBAN_BBAN[country]
    parts = []
    index = 0
    while index < len(spec):
        kind = spec[index]
        index += 1
        digits = ""
        while index < len(spec) and spec[index].isdigit():
            digits += spec[index]
            index += 1
        alphabet = {"n": string.digits, "a": string.ascii_uppercase, "c": string.ascii_uppercase + string.digits}[kind]
        parts.append(_chars(rng, alphabet, int(digits)))
    bban = "".join(parts)
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(numeric) % 97
    raw = f"{country}{check:02d}{bban}"
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4)) if rng.random() < 0.5 else raw


def _jwt(rng) -> str:
    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return (f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': str(rng.randrange(10**9)), 'iat': rng.randrange(10**9)})}."
            f"{_chars(rng, string.ascii_letters + string.digits + '-_', 43)}")  # fmt: skip


def positives(rng, per_kind: int) -> list[tuple[str, str, str]]:
    """(kind family, value, sentence) samples."""
    import phonenumbers

    alnum = string.ascii_letters + string.digits
    makers = {
        "email": lambda: (f"{_chars(rng, string.ascii_lowercase, rng.randint(3, 9))}.{_chars(rng, string.ascii_lowercase, 5)}"
                          f"@{rng.choice(['gmail.com', 'outlook.com', 'acme-corp.io', 'uni-lisboa.pt', 'mail.example.org'])}"),
        "phone": lambda: _phone(rng, phonenumbers),
        "payment_card": lambda: _card(rng),
        "iban": lambda: _iban(rng, rng.choice(list(IBAN_BBAN))),
        "aws_access_key": lambda: "AKIA" + _chars(rng, string.ascii_uppercase + "234567", 16),
        "github_token": lambda: rng.choice(["ghp_", "gho_", "ghs_"]) + _chars(rng, alnum, 36),
        "gitlab_token": lambda: "glpat-" + _chars(rng, alnum + "-_", 20),
        "slack_token": lambda: f"xoxb-{_chars(rng, string.digits, 12)}-{_chars(rng, string.digits, 13)}-{_chars(rng, alnum, 24)}",
        "stripe_key": lambda: rng.choice(["sk_live_", "rk_live_"]) + _chars(rng, alnum, 24),
        "openai_key": lambda: "sk-proj-" + _chars(rng, alnum + "-_", 56),
        "anthropic_key": lambda: "sk-ant-api03-" + _chars(rng, alnum + "-_", 93),
        "google_api_key": lambda: "AIza" + _chars(rng, alnum + "-_", 35),
        "jwt": lambda: _jwt(rng),
        "private_key": lambda: (f"-----BEGIN {rng.choice(['RSA ', 'EC ', 'OPENSSH ', ''])}PRIVATE KEY-----\n"
                                f"{_chars(rng, alnum + '+/', 64)}\n-----END PRIVATE KEY-----"),
        "url_credentials": lambda: _url_credentials(rng, alnum),
        "secret_assignment": lambda: _assignment(rng, alnum),
        "sendgrid": lambda: f"SG.{_chars(rng, alnum + '-_', 22)}.{_chars(rng, alnum + '-_', 43)}",
        "npm": lambda: "npm_" + _chars(rng, alnum, 36),
    }  # fmt: skip
    out = []
    for kind, make in makers.items():
        for _ in range(per_kind):
            made = make()
            value, core = made if isinstance(made, tuple) else (made, made)
            label = kind.replace("_", " ")
            out.append((kind, core, rng.choice(SENTENCES).format(label=label, value=value)))
    return out


def _url_credentials(rng, alnum) -> tuple[str, str]:
    """(the URL, its password: what must not survive)."""
    password = _chars(rng, alnum + "!%*", rng.randint(8, 20))
    scheme = rng.choice(["postgres", "mysql", "mongodb+srv", "redis", "amqp"])
    return (f"{scheme}://{_chars(rng, string.ascii_lowercase, 6)}:{password}@db{rng.randint(1, 9)}.internal.example.net:5432/app",
            password)  # fmt: skip


def _assignment(rng, alnum) -> tuple[str, str]:
    name = rng.choice(["DB_PASSWORD", "password", "API_KEY", "client_secret", "AWS_SECRET_ACCESS_KEY", "auth_token"])
    value = _chars(rng, alnum + "/+", rng.randint(12, 40))
    return f"{name}{rng.choice(['=', ': ', ' = '])}{value}", value


def _phone(rng, phonenumbers) -> str:
    region = rng.choice(REGIONS)
    example = phonenumbers.example_number_for_type(region, rng.choice([phonenumbers.PhoneNumberType.MOBILE,
                                                                       phonenumbers.PhoneNumberType.FIXED_LINE]))  # fmt: skip
    for _ in range(20):  # vary the last digits until the number is valid again
        national = str(example.national_number)
        varied = national[:-3] + _chars(rng, string.digits, 3)
        number = phonenumbers.parse(f"+{example.country_code}{varied}")
        if phonenumbers.is_valid_number(number):
            break
    else:
        number = example
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def _card(rng) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15), ("37", 15), ("6011", 16),
                                 ("65", 16)])  # fmt: skip
    digits = _luhn_complete(rng, prefix, length)
    style = rng.choice(["plain", "spaces", "dashes"])
    if style == "plain":
        return digits
    sep = " " if style == "spaces" else "-"
    groups = [4, 6, 5] if length == 15 else [4, 4, 4, 4]
    out, at = [], 0
    for size in groups:
        out.append(digits[at : at + size])
        at += size
    return sep.join(out)


def negatives() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, pattern in (("locomo-dev facts", "locomo-dev/*.json"), ("tideline-gold facts", "tideline-gold/*.json")):
        texts = []
        for path in sorted(glob.glob(str(SHARED / pattern))):
            for fact in json.loads(Path(path).read_text(encoding="utf-8")).get("facts", []):
                texts.append(fact["content"] if isinstance(fact, dict) else str(fact))
        if texts:
            out[name] = texts
    corpus = ROOT / "tests" / "data" / "injection" / "corpus.jsonl"
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    out["injection corpus (benign)"] = [row["text"] for row in rows if row.get("label") == "benign"]
    for source in ("agentdojo", "python_docs", "multilingual"):
        path = ROOT / "bench" / "data" / "injection_sources" / f"{source}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out[f"{source} (benign)"] = [row["text"] for row in rows if row.get("label") == "benign"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.sensitive", description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from memory.engine.safety import sensitive as S

    rng = random.Random(args.seed)
    caught: dict[str, list[int]] = {}
    missed_examples: dict[str, str] = {}
    for kind, core, sentence in positives(rng, args.per_kind):
        findings = S.scan(sentence)
        if kind in S.PERSONAL:  # found as that kind
            hit = any(f.kind == kind for f in findings)
        else:  # found as a secret, and its value does not survive the placeholder (not even half of it)
            redacted = S.redact(sentence, findings)
            hit = any(f.secret for f in findings) and core not in redacted and core[: len(core) // 2] not in redacted
        caught.setdefault(kind, []).append(int(hit))
        if not hit:
            missed_examples.setdefault(kind, sentence)
    flagged: dict[str, dict] = {}
    timings = []
    for name, texts in negatives().items():
        hits, secret_hits = [], 0
        for text in texts:
            started = time.perf_counter()
            found = S.scan(text)
            timings.append((time.perf_counter() - started) * 1000 / max(len(text), 1) * 1000)
            if found:
                hits.append((S.kinds(found), text[:160]))
                secret_hits += any(f.secret for f in found)
        flagged[name] = {"texts": len(texts), "flagged": len(hits), "share": round(len(hits) / max(len(texts), 1), 4),
                         "with_a_secret": secret_hits, "secret_share": round(secret_hits / max(len(texts), 1), 4),
                         "examples": hits[:8]}  # fmt: skip
    personal = [k for k in caught if k in S.PERSONAL]
    secrets = [k for k in caught if k not in S.PERSONAL]
    result = {
        "caught": {kind: round(sum(v) / len(v), 3) for kind, v in caught.items()},
        "personal_caught": round(sum(sum(caught[k]) for k in personal) / sum(len(caught[k]) for k in personal), 4),
        "secrets_caught": round(sum(sum(caught[k]) for k in secrets) / sum(len(caught[k]) for k in secrets), 4),
        "missed_examples": missed_examples, "negatives": flagged,
        "ms_per_1000_chars": {"p50": round(statistics.median(timings), 3),
                              "p95": round(sorted(timings)[int(0.95 * (len(timings) - 1))], 3)},
    }  # fmt: skip
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"personal data caught: {result['personal_caught']:.1%}   secrets caught: {result['secrets_caught']:.1%}")
    for kind, share in result["caught"].items():
        print(f"  {kind:<18} {share:.1%}" + (f"   missed e.g. {missed_examples[kind][:90]!r}" if kind in missed_examples else ""))
    for name, row in flagged.items():
        print(f"{name}: {row['flagged']} of {row['texts']} flagged ({row['share']:.2%}), "
              f"{row['with_a_secret']} for a secret ({row['secret_share']:.2%})")
        for kinds, text in row["examples"]:
            print(f"    {kinds} {text[:120]!r}")
    print(f"cost: p50 {result['ms_per_1000_chars']['p50']} ms, p95 {result['ms_per_1000_chars']['p95']} ms per 1,000 characters")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    sys.exit(main())
