"""The demo's gold set: questions an agent asks in the middle of a task, which the shipped settings
answer only in part, so that a new user can run the whole self-improvement loop on the demo.

An agent rarely asks "which seat do I like?"; it asks "Booking Maya's flight to Lisbon: which seat
does she like?", and the task's words ("Lisbon", "flight") match other facts better than the answer.
The shipped match cut keeps only hits that match nearly as strongly as the best one, so some answers
are cut. On these cases a settings search finds that a lower cut returns them, shows it on cases it was
not fitted to, and says what it costs (more facts per question): propose, evaluate, approve as a
second person, apply, see the playground change, revert. Two questions no setting answers (the
memory words them differently) stay, as in any real gold set.

Made when the demo loads (memory's `demo_loaded` signal), by demo-owner, approved by demo-approver.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone

from governance.models import GoldCase, GoldSet
from governance.services.gold import _event
from memory.models import Fact, Workspace

NAME = "agent-questions"
# (question, the owner's fact that answers it, category)
CASES = (
    ("I am booking Maya's flight to Lisbon: which seat does she like?", "I prefer window seats on flights.", "preference"),
    ("Planning the Lisbon trip: does Maya take the train or fly for short trips?",
     "I prefer trains to planes for trips under 600 km.", "preference"),
    ("Replying to Rui Costa about the cost dashboard: email or phone call?",
     "I prefer email to phone calls for anything non-urgent.", "preference"),
    ("Planning the deploy of the warehouse scanner sync: big releases or small ones?",
     "I like to deploy small changes often.", "preference"),
    ("Adding type hints to the invoice exporter: where does Maya want them?",
     "I prefer Python type hints on every public function.", "preference"),
    ("Ordering dessert in Porto for Maya: which sweet does she like?", "I like Portuguese custard tarts.", "preference"),
    ("Drafting the routing service review for Maya: how does she like code reviews?",
     "I like code reviews to be short and specific.", "preference"),
    ("Opening a pull request on the invoice exporter: how large can it be?",
     "I want pull requests to stay under 400 lines.", "preference"),
    ("Filling in the Porto conference form: what date format should I use for Maya?",
     "I want dates written as YYYY-MM-DD.", "preference"),
    ("Booking a table in Porto for Maya: any food allergy?", "I have a mild peanut allergy.", "identity"),
    ("Choosing a cafe in Porto for Maya to work from: what kind does she like?",
     "I prefer calm, quiet cafes for focused work.", "preference"),
    ("Sending the on-call tooling invite: what should every calendar invite include?",
     "I want calendar invites to include an agenda.", "preference"),
    ("Setting up Maya's new laptop for the billing pipeline: light or dark editor theme?",
     "I like dark mode in every editor.", "preference"),
    ("Booking a Saturday run along the Douro for Maya: when does she like to run?",
     "I like running early on Saturdays.", "preference"),
    ("Buying Maya a book about the Kafka migration: paper or ebook?", "I read technical books on paper.", "preference"),
    ("Choosing music for Maya's coding session on the billing pipeline: what does she like?",
     "I like jazz while I write code.", "preference"),
    ("Booking the train back from Lisbon to Porto: aisle or window?", "I prefer aisle seats on trains.", "preference"),
    ("Fixing a typo in the routing service: which editor does Maya open for quick edits?",
     "I prefer Neovim for quick edits.", "preference"),
    ("Booking Maya's morning in Lisbon: tea or coffee?", "I prefer tea over coffee in the morning.", "preference"),
    ("Where was Maya born?", "I was born in Lagos in 1991.", "identity"),
    ("Which port is the staging database on?", "Correction: the staging database is on port 5433, not 5432.", "knowledge"),
    ("Ordering lunch for the billing pipeline team: is there anything Maya does not eat?",
     "I keep a strict vegetarian diet.", "preference"),
    ("Picking a database for the new routing service feature: which does Maya prefer?",
     "I prefer PostgreSQL over MySQL.", "preference"),
    ("Writing the driver app API docs for Maya: which units should distances use?", "I prefer metric units.",
     "preference"),
    ("Ordering coffee for Maya at the cost dashboard review: how does she take it?",
     "I like my coffee black when I do drink it.", "preference"),
    ("Writing the cost dashboard documentation for Maya: in which language?", "I prefer English for work documents.",
     "preference"),
    ("Preparing the billing pipeline handbook with Tomas Reis: paper or ebook for Maya?",
     "I read technical books on paper.", "preference"),
)  # fmt: skip


def add_demo_gold_set(sender, *, workspace: Workspace, **kwargs) -> GoldSet | None:
    """Create and approve the demo's gold set (a second load changes nothing)."""
    if GoldSet.objects.filter(workspace=workspace, name=NAME).exists():
        return None
    ids = {}
    for fact in Fact.objects.filter(workspace=workspace, origin_key="owner", lifecycle="active"):
        ids.setdefault(fact.content, fact.memory_id)
    approver = get_user_model().objects.filter(username="demo-approver").first()
    gold = GoldSet.objects.create(workspace=workspace, name=NAME, kind=GoldSet.Kind.LIVE, source=GoldSet.Source.UPLOAD,
                                  created_by="demo-owner")
    GoldCase.objects.bulk_create([
        GoldCase(gold_set=gold, case_id=f"q{n:02d}", query=query, relevant_keys=[ids[answer]], category=category,
                 position=n)
        for n, (query, answer, category) in enumerate(CASES, 1) if answer in ids])  # fmt: skip
    _event(gold, "created", actor="demo-owner", cases=gold.cases.count(), source="demo")
    gold.approved_at, gold.approved_by, gold.approved_by_name = timezone.now(), approver, "demo-approver"
    gold.save(update_fields=["approved_at", "approved_by", "approved_by_name", "updated_at"])
    _event(gold, "approved", actor="demo-approver", cases=gold.cases.count())
    return gold
