"""The write path and what feeds it: policy, the untrusted-text judgement, dedup, bulk rows, facts.jsonl import/export."""
