"""The demo workspace: a few hundred realistic facts, generated deterministically by code.

An owner (Maya, a backend engineer in Porto) and two channel peers; every segment, tier and link
kind; trusted and untrusted sources; subject slots whose earlier values were superseded;
contradictions; archived facts; and a console user for each role. The same code always yields the
same facts, ids and links; only the timestamps are anchored to the day it is first loaded, so the
decay picture looks the same whenever someone tries it. Loading is idempotent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from memory import signals
from memory.engine.facts import records as R
from memory.models import Fact, Membership, Workspace
from memory.services.workspaces import get_workspace
from memory.services.writes.interchange import ImportReport, import_facts
from memory.services.writes.write_path import NewFact, write_fact
from memory.timestamps import to_ms

DEMO_WORKSPACE = "demo"
DEMO_PASSWORD = "tideline-demo"
DEMO_USERS = (("demo-owner", "owner"), ("demo-approver", "approver"), ("demo-admin", "admin"))
DAY_MS = 86_400_000

PEERS = (
    R.Origin("channel", "slack", "team-backend", "2026-q4-planning", "T01ACME"),
    R.Origin("channel", "telegram", "chat-4411", "session-7"),
)

IDENTITY = [
    "My name is Maya Okafor.", "I am a backend engineer at Lumen Freight.", "I was born in Lagos in 1991.",
    "I speak English, Portuguese and Yoruba.", "My pronouns are she/her.", "I studied computer science at the University of Lagos.",
    "I hold Portuguese residency.", "My work email is maya@lumenfreight.example.", "I am left-handed.",
    "My blood type is O positive.", "I have a mild peanut allergy.", "My GitHub handle is mokafor.",
]  # fmt: skip
PREFERENCES = [
    "I prefer tea over coffee in the morning.", "I keep a strict vegetarian diet.", "I like code reviews to be short and specific.",
    "I prefer Python type hints on every public function.", "I like dark mode in every editor.", "I prefer window seats on flights.",
    "I prefer meetings after 10 am.", "I want summaries in bullet points, not paragraphs.", "I prefer PostgreSQL over MySQL.",
    "I like to deploy small changes often.", "I prefer trains to planes for trips under 600 km.", "I read technical books on paper.",
    "I like jazz while I write code.", "I prefer metric units.", "I want dates written as YYYY-MM-DD.",
    "I prefer email to phone calls for anything non-urgent.", "I like running early on Saturdays.", "I prefer aisle seats on trains.",
    "I want pull requests to stay under 400 lines.", "I prefer pytest over unittest.", "I like my coffee black when I do drink it.",
    "I prefer Neovim for quick edits.", "I prefer calm, quiet cafes for focused work.", "I like Portuguese custard tarts.",
    "I prefer English for work documents.", "I want calendar invites to include an agenda.",
]  # fmt: skip
CORRECTIONS = [
    "Correction: the staging database is on port 5433, not 5432.", "Correction: my manager's name is spelled Ines, not Inez.",
    "Correction: the billing service is written in Go, not Rust.", "Correction: the quarterly review is on Thursdays.",
    "Correction: Lumen's office is on Rua das Flores, not Rua do Almada.", "Correction: I am allergic to peanuts, not tree nuts.",
    "Correction: the on-call rotation is weekly, not daily.", "Correction: the API rate limit is 600 requests per minute.",
]  # fmt: skip
PEOPLE = [
    ("Ines Duarte", "my manager at Lumen Freight"), ("Tomas Reis", "the staff engineer on the routing team"),
    ("Aisha Bello", "my sister, who lives in Manchester"), ("Rui Costa", "my running partner"),
    ("Dr. Helena Matos", "my dentist in Porto"), ("Kwame Mensah", "an old friend from university"),
    ("Sofia Almeida", "the product manager for billing"), ("Joao Pinto", "our landlord"),
    ("Lena Vogel", "a database consultant we hired in 2026"), ("Marco Ferri", "the SRE who owns the Kubernetes clusters"),
    ("Chidi Okafor", "my father"), ("Ada Okafor", "my mother"), ("Nuno Silva", "the security lead"),
    ("Priya Natarajan", "a former colleague now at Stripe"), ("Beatriz Lopes", "my Portuguese tutor"),
]  # fmt: skip
MONTHS = ["January", "March", "May", "June", "August", "October", "November", "December"]
PROJECTS = [
    "routing service", "billing pipeline", "driver app API", "warehouse scanner sync", "invoice exporter",
    "Tideline memory rollout", "search relevance revamp", "Kafka migration", "cost dashboard", "on-call tooling",
]  # fmt: skip
PROJECT_TEMPLATES = [
    "The {p} runs on Python 3.11 and Django.", "The {p} deadline is the end of the quarter.",
    "The {p} uses PostgreSQL 16 as its main database.", "I own the on-call runbook for the {p}.",
    "The {p} has a p95 latency target of 200 ms.", "The {p} deploys through GitHub Actions.",
    "Tests for the {p} must pass on both SQLite and PostgreSQL.", "The {p} publishes events to Kafka.",
]  # fmt: skip
KNOWLEDGE = [
    "Porto's metro runs until about 1 am.", "The Douro river flows into the Atlantic at Porto.",
    "PostgreSQL advisory locks are released at session end unless taken per transaction.",
    "BM25 uses k1 around 1.2 and b around 0.75 by default.", "Louvain community detection maximises modularity.",
    "The Lisbon to Porto Alfa Pendular train takes under three hours.", "Django 5.2 is a long-term support release.",
    "HTTP 429 means the client sent too many requests.", "Uvicorn is an ASGI server.",
    "AES-GCM needs a unique nonce for every message under one key.", "The Portuguese word saudade has no exact English equivalent.",
    "Porto's Francesinha sandwich is covered in a beer and tomato sauce.", "SQLite's WAL mode allows one writer with many readers.",
    "Redis keeps its data in memory and can persist snapshots to disk.", "A crypto-shred destroys the key rather than the data.",
    "The Lumen Freight fleet has about 340 trucks.", "Lumen's main warehouse is in Maia.", "UTC has no daylight saving time.",
]  # fmt: skip
TOOL_KNOWLEDGE = [
    ("tool_output", "The weather API reported 18 degrees and light rain in Porto."),
    ("tool_output", "The deploy tool reported build 4412 green on the routing service."),
    ("tool_output", "The calendar tool lists a dentist appointment on the 14th at 09:30."),
    ("retrieved_document", "The Lumen handbook says expense reports are due by the 5th of each month."),
    ("retrieved_document", "A blog post claims Kafka 4 removes ZooKeeper entirely."),
    ("retrieved_document", "The Porto city website says the Sao Joao festival is on June 23rd."),
    ("extraction", "Maya mentioned she is training for the Porto half marathon."),
    ("compaction", "Earlier this week Maya debugged a deadlock in the billing pipeline."),
    ("tool_output", "The status page showed a 20 minute outage of the driver app API."),
    ("retrieved_document", "The PostgreSQL docs say VACUUM reclaims storage held by dead tuples."),
]  # fmt: skip
CONTEXT = [
    "I am debugging a flaky test in the {p} today.", "I am waiting on a review from {name}.",
    "I have a one-on-one with {name} this afternoon.", "I am working from a cafe this morning.",
    "I am reading a paper about vector search this week.", "I am blocked on access to the {p} logs.",
    "I am travelling to Lisbon tomorrow.", "I need to renew my residency card this month.",
    "I am pairing with {name} on the {p} today.", "I owe {name} a reply about the {p}.",
]  # fmt: skip
# Subject slots: (key, segment, [older values ..., current value])
SLOTS = [
    ("home_city", "identity", ["I live in Lisbon.", "I live in Porto."]),
    ("employer", "identity", ["I work at Brightline Logistics.", "I work at Lumen Freight."]),
    ("favourite_editor", "preference", ["My favourite editor is VS Code.", "My favourite editor is Neovim."]),
    ("standup_time", "preference", ["I want standup at 09:00.", "I want standup at 09:30.", "I want standup at 10:00."]),
    ("team", "project", ["I am on the payments team.", "I am on the routing team."]),
    ("phone_model", "knowledge", ["My phone is a Pixel 6.", "My phone is a Pixel 9."]),
]  # fmt: skip
CONTRADICTIONS = [
    ("I never work on weekends.", "I often work on Saturday mornings."),
    ("The routing service has no caching layer.", "The routing service caches routes in Redis."),
    ("I dislike spicy food.", "I love spicy piri-piri chicken."),
]  # fmt: skip
PEER_FACTS = [
    ("context", "The backend team wants the Kafka migration finished before December."),
    ("project", "The Slack channel team-backend tracks planning for Q4."),
    ("knowledge", "Tomas prefers design docs before any code for large changes."),
    ("preference", "This peer prefers replies in short messages."),
    ("relationship", "Tomas Reis leads the routing team's planning sessions."),
    ("context", "Planning notes are due by Friday."),
    ("project", "The Q4 plan lists search relevance as a stretch goal."),
    ("knowledge", "The team's retro happens every second Wednesday."),
]  # fmt: skip


@dataclass
class DemoResult:
    workspace: Workspace
    created: bool
    report: ImportReport | None
    users: tuple[tuple[str, str], ...]
    # Demo users an older install had made staff or superuser, demoted by this load.
    demoted: tuple[str, ...] = ()


class _Builder:
    """Accumulates interchange records with deterministic ids and timestamps."""

    def __init__(self, anchor_ms: int, rng: random.Random) -> None:
        self.anchor_ms, self.rng, self.records, self.count = anchor_ms, rng, [], 0

    def add(self, content: str, segment: str, *, origin: R.Origin | None = None, days_ago: float | None = None,
            **fields) -> dict:  # fmt: skip
        self.count += 1
        defaults = R.SEGMENT_DEFAULTS[segment]
        age = days_ago if days_ago is not None else self.rng.uniform(0.5, 120)
        created = self.anchor_ms - int(age * DAY_MS)
        accessed = created + int(self.rng.uniform(0, min(age, 20)) * DAY_MS)
        record = {
            "memoryId": f"mem_demo_{self.count:04d}",
            "content": content,
            "segment": segment,
            "tier": defaults.tier,
            "importance": defaults.importance,
            "decayRate": defaults.decay_rate,
            "accessCount": self.rng.randint(0, 12),
            "lastAccessedAt": accessed,
            "createdAt": created,
            "lifecycle": "active",
            "createdBy": (origin or R.Origin.owner()).as_created_by(),
            "sourceType": "owner_message" if origin is None else "channel_message",
        }
        record.update(fields)
        self.records.append(record)
        return record

    def link(self, source: dict, kind: str, target: dict, reason: str | None = None) -> None:
        link = {"kind": kind, "target": target["memoryId"]}
        if reason:
            link["reason"] = reason
        source.setdefault("links", []).append(link)


def build_demo_records(anchor_ms: int) -> list[dict]:
    """The demo's facts.jsonl records, the same for the same anchor."""
    rng = random.Random(20261121)
    b = _Builder(anchor_ms, rng)
    identity = [b.add(text, "identity", sourceType="user_instruction") for text in IDENTITY]
    prefs = [b.add(text, "preference") for text in PREFERENCES]
    corrections = [b.add(text, "correction", metadata={"corrects": "an earlier belief"}) for text in CORRECTIONS]
    people = []
    for name, role in PEOPLE:
        people.append(b.add(f"{name} is {role}.", "relationship",
                            subjectKey=R.normalize_subject_key(f"{name}_role")))  # the write path's form
        b.add(f"{name}'s birthday is in {rng.choice(MONTHS)}.", "relationship")
        b.add(f"I meet {name} every {rng.choice(['week', 'other week', 'month'])}.", "relationship")
    projects = {}
    for project in PROJECTS:
        facts = [b.add(t.format(p=project), "project") for t in rng.sample(PROJECT_TEMPLATES, 4)]
        projects[project] = facts
        for first, second in zip(facts, facts[1:], strict=False):
            b.link(second, "part_of", first, f"both describe the {project}")
    knowledge = [b.add(text, "knowledge") for text in KNOWLEDGE]
    untrusted = [b.add(text, "knowledge", sourceType=source, importance=0.5) for source, text in TOOL_KNOWLEDGE]
    context = []
    for index in range(110):
        template = CONTEXT[index % len(CONTEXT)]
        name = PEOPLE[(index * 7) % len(PEOPLE)][0]
        text = template.format(p=PROJECTS[(index // len(CONTEXT) * 3 + index) % len(PROJECTS)], name=name)
        if any(record["content"] == text for record in context):
            continue  # templates without a placeholder would repeat themselves
        archived = index % 4 == 0
        context.append(b.add(text, "context", days_ago=rng.uniform(1, 60),
                             **({"lifecycle": "archived", "validTo": anchor_ms - DAY_MS} if archived else {})))  # fmt: skip

    # Subject slots: every earlier value archived, closed (validTo) and replaced by the next.
    for key, segment, values in SLOTS:
        previous = None
        for step, text in enumerate(values):
            current = b.add(text, segment, subjectKey=key, days_ago=90 - 30 * step)
            if previous is not None:
                previous.update(lifecycle="archived", validTo=current["createdAt"])
                current["supersedes"] = [previous["memoryId"]]
                b.link(current, "transition", previous, f"new value for {key}")
                b.link(current, "contradicts", previous, f"{key} changed")
            previous = current

    for first_text, second_text in CONTRADICTIONS:
        first = b.add(first_text, "preference" if "I " in first_text else "knowledge")
        second = b.add(second_text, first["segment"])
        b.link(second, "contradicts", first, "both cannot be true")
        b.link(first, "contradicts", second, "both cannot be true")

    # A few PII and public facts; one fact confirmed by a dream and pinned.
    for record in identity[7:11]:
        record["classification"] = "PII"
    for record in knowledge[:6]:
        record["classification"] = "PUBLIC"
    prefs[0].update(status="confirmed", confidence=0.9)

    # One of every remaining link kind, between facts where the relation reads true.
    b.link(corrections[0], "corrects", projects["routing service"][0], "port fix")
    b.link(untrusted[6], "derived_from", identity[0], "extracted from conversation")
    b.link(knowledge[3], "supports", projects["search relevance revamp"][0], "ranking background")
    b.link(context[1], "causes", context[2], "waiting causes the meeting")
    b.link(context[2], "caused_by", context[1])
    b.link(projects["Kafka migration"][0], "precedes", projects["cost dashboard"][0])
    b.link(projects["cost dashboard"][0], "follows", projects["Kafka migration"][0])
    b.link(projects["on-call tooling"][0], "enables", projects["routing service"][1])
    b.link(context[5], "blocks", projects["billing pipeline"][0], "no log access")
    b.link(prefs[12], "co_constrains", prefs[6], "both shape the working day")
    b.link(knowledge[15], "located_at", knowledge[0], "warehouse near Porto")
    b.link(projects["Tideline memory rollout"][0], "uses", knowledge[6])
    b.link(people[1], "works_on", projects["routing service"][0])
    b.link(prefs[1], "contrasts_with", knowledge[11], "vegetarian vs a meat sandwich")
    b.link(people[0], "relates_to", projects["billing pipeline"][0])
    b.link(knowledge[4], "same_topic", knowledge[3], "ranking and graphs")
    b.link(prefs[2], "relates", prefs[18], "both about code review")
    b.link(identity[10], "supports", corrections[5], "allergy")

    for peer_index, peer in enumerate(PEERS):
        for offset, (segment, text) in enumerate(PEER_FACTS):
            if peer_index == 1:
                text = text.replace("Slack channel team-backend", "Telegram chat").replace("Tomas", "Rui")
            b.add(text, segment, origin=peer, days_ago=rng.uniform(1, 40 + offset))
    return b.records


def load_demo(*, name: str = DEMO_WORKSPACE) -> DemoResult:
    """Create the demo workspace, its facts and its users; a second call changes nothing."""
    users, demoted = _ensure_users(name)
    workspace = get_workspace(name, create=True, actor="demo")
    _ensure_memberships(workspace)
    if Fact.objects.filter(workspace=workspace).exists():
        return DemoResult(workspace, False, None, users, demoted)
    anchor = to_ms(timezone.now().replace(minute=0, second=0, microsecond=0))
    import json

    lines = [json.dumps(record) for record in build_demo_records(int(anchor))]
    report = import_facts(workspace=workspace, lines=lines, actor="demo", strict=True, source_name="demo")
    _write_live(workspace)
    signals.demo_loaded.send(sender=Workspace, workspace=workspace)
    workspace.refresh_from_db()
    return DemoResult(workspace, True, report, users, demoted)


# Writes that go through today's write path, so the review queue has one of each kind waiting: a
# tool result disputing where Maya lives (a held write), and a channel peer writing personal data
# and correcting its own earlier fact (durable promotions for an approver).
LIVE_WRITES = [
    dict(content="Maya moved to Madrid last month, according to the travel booking tool.", segment="knowledge",
         subject_key="home_city", source_type="tool_output", actor="agent:travel-tool"),
    dict(content="Tomas Reis's mobile number is +351 912 000 111.", segment="relationship", origin=PEERS[0],
         source_type="channel_message", classification="PII", actor="agent:slack-gateway"),
    dict(content="Planning notes are due by Thursday, not Friday.", segment="context", origin=PEERS[0],
         source_type="channel_message", corrects="Planning notes are due by Friday.", actor="agent:slack-gateway"),
]  # fmt: skip


def _write_live(workspace: Workspace) -> None:
    for spec in LIVE_WRITES:
        spec = dict(spec)
        actor, corrects = spec.pop("actor"), spec.pop("corrects", None)
        origin = spec.pop("origin", R.Origin.owner())
        if corrects:
            target = next(f for f in Fact.objects.filter(workspace=workspace, origin_key=origin.key, lifecycle="active")
                          if f.content == corrects)  # fmt: skip
            spec["supersedes"] = (target.memory_id,)
        write_fact(workspace=workspace, new=NewFact(origin=origin, **spec), actor=actor)


def _ensure_users(name: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Create the demo users; return their credentials and the names of any that had to be demoted.

    Their password is published, so none of them may ever open Django's admin: an install from
    before this rule made `demo-admin` a superuser, and loading the demo again takes that away.
    """
    User = get_user_model()
    demoted = []
    with transaction.atomic():
        for username, _role in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            elif user.is_staff or user.is_superuser:
                user.is_staff = user.is_superuser = False
                user.save(update_fields=["is_staff", "is_superuser"])
                demoted.append(username)
    return tuple((username, DEMO_PASSWORD) for username, _ in DEMO_USERS), tuple(demoted)


def _ensure_memberships(workspace: Workspace) -> None:
    User = get_user_model()
    for username, role in DEMO_USERS:
        user = User.objects.get(username=username)
        Membership.objects.get_or_create(user=user, workspace=workspace, role=role)
