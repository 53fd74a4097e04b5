"""A fact as the engine sees it: the record model, what a fact may hold, the facts.jsonl format."""
