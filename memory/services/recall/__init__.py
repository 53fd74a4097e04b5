"""Recall over the database: the per-origin index kept in step with the event log, reinforcement, replay, eval, embedders."""
