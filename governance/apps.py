from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "governance"
    verbose_name = "Governance"

    def ready(self) -> None:
        from django.db.models.signals import pre_save
        from django_q.models import Schedule
        from django_q.signals import post_spawn

        from governance.schedules import refuse_disallowed_schedule
        from governance.services.closing import close_items_of_deleted_facts, close_items_of_shredded_origin
        from governance.services.contradictions import open_demo_contradictions
        from governance.services.held_writes import open_held_write_review
        from governance.services.verdicts import refuse_restoring_blocked
        from memory.signals import (
            demo_loaded,
            fact_written,
            facts_deleted,
            facts_retracted,
            feedback_given,
            origin_shredded,
            recall_served,
            restore_requested,
            write_held,
        )

        pre_save.connect(refuse_disallowed_schedule, sender=Schedule, dispatch_uid="tideline-schedule-allow-list")
        # Memory announces held writes; governance keeps the review queue (memory never imports governance).
        write_held.connect(open_held_write_review, dispatch_uid="tideline-held-write-review")
        # A deleted fact's open items are closed with a reason, never left open or silently dropped.
        facts_deleted.connect(close_items_of_deleted_facts, dispatch_uid="tideline-close-deleted-fact-reviews")
        facts_retracted.connect(close_items_of_deleted_facts, dispatch_uid="tideline-close-retracted-fact-reviews")
        origin_shredded.connect(close_items_of_shredded_origin, dispatch_uid="tideline-close-shredded-origin-reviews")
        # Nor does a console upload naming the origin wait on disk in plain text for a confirmation.
        from governance.services.import_uploads import cancel_uploads_of_shredded_origin

        origin_shredded.connect(cancel_uploads_of_shredded_origin, dispatch_uid="tideline-shred-pending-uploads")
        # A blocked write comes back only through its review item's verdict, never the console's Restore.
        restore_requested.connect(refuse_restoring_blocked, dispatch_uid="tideline-refuse-restoring-blocked")
        # The demo's first contradiction pass, so its queue is not empty until the first night.
        demo_loaded.connect(open_demo_contradictions, dispatch_uid="tideline-demo-contradictions")
        # And a gold set of agents' questions the shipped settings answer only in part: the loop can run on it.
        from governance.services.demo_gold import add_demo_gold_set

        demo_loaded.connect(add_demo_gold_set, dispatch_uid="tideline-demo-gold-set")
        # An agent's vote that names its query is a gold-case candidate; a purged or shredded fact takes its along.
        from governance.services.gold_candidates import forget_facts, from_feedback

        feedback_given.connect(from_feedback, dispatch_uid="tideline-gold-candidates")
        facts_deleted.connect(forget_facts, dispatch_uid="tideline-gold-candidates-deleted")
        origin_shredded.connect(forget_facts, dispatch_uid="tideline-gold-candidates-shredded")
        # What recall served agents, kept a while: a recall that found nothing meets the write that answers
        # it, and an applied proposal shows which recalls' first hit moved.
        from governance.services import recall_log

        recall_served.connect(recall_log.keep, dispatch_uid="tideline-recall-log")
        fact_written.connect(recall_log.answered_after, dispatch_uid="tideline-recall-log-answered")
        origin_shredded.connect(recall_log.forget_origin, dispatch_uid="tideline-recall-log-shredded")
        # Webhooks: a purge or a shred queues its calls in the same transaction (governance/services/webhooks.py).
        from governance.services import webhooks

        facts_deleted.connect(webhooks.on_facts_deleted, dispatch_uid="tideline-webhooks-purged")
        facts_retracted.connect(webhooks.on_facts_retracted, dispatch_uid="tideline-webhooks-retracted")
        origin_shredded.connect(webhooks.on_origin_shredded, dispatch_uid="tideline-webhooks-shredded")
        # Each django-q2 worker, as it starts, takes up what a killed worker left "running": console
        # imports are resumed, proposal evaluations failed so that they can be requested again.
        post_spawn.connect(_take_up_interrupted_tasks, dispatch_uid="tideline-take-up-interrupted-tasks")


def _take_up_interrupted_tasks(sender=None, **kwargs) -> None:
    import logging

    from django.db import DatabaseError, InterfaceError
    from django_q.conf import Conf

    from governance.services import imports, proposals, settings_searches

    if Conf.SYNC:  # tasks run inline in their caller (which sends this too): no worker was killed
        return
    try:
        imports.resume_interrupted()
        proposals.fail_interrupted()
        settings_searches.fail_interrupted()
    except (DatabaseError, InterfaceError):  # no database now: the next worker to start looks again
        logging.getLogger(__name__).exception("could not look for interrupted tasks")
