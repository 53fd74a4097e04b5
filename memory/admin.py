"""Django's admin shows memory records read-only.

Every change to memory goes through the services (one mutation, one event each) and membership
changes through the console's rules; an admin form would skip both (a link deleted here would
leave no event, a membership added here would skip the console's checks). So superusers may
look, never add, change or delete.
"""

from django.contrib import admin

from memory.models import Fact, Link, Membership, MemoryEvent, Workspace


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Workspace)
class WorkspaceAdmin(ReadOnlyAdmin):
    list_display = ("name", "revision", "created_at")


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin):
    list_display = ("user", "workspace", "role")
    list_filter = ("role", "workspace")


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ("memory_id", "workspace", "segment", "tier", "lifecycle", "origin_key", "source_type", "created_at")
    list_filter = ("workspace", "segment", "tier", "lifecycle", "classification", "origin_kind")
    search_fields = ("memory_id", "subject_key")
    readonly_fields = ("plaintext_content",)
    exclude = ("sealed_content", "sealed_metadata")

    @admin.display(description="content")
    def plaintext_content(self, obj: Fact) -> str:
        return obj.content if obj.is_readable else "(unreadable: the origin's key was destroyed)"


@admin.register(Link)
class LinkAdmin(ReadOnlyAdmin):
    list_display = ("from_fact", "kind", "to_fact", "dangling_target", "workspace")
    list_filter = ("kind", "workspace")
    raw_id_fields = ("from_fact", "to_fact")
    exclude = ("sealed_reason",)  # ciphertext; the console shows the reason to members


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ("revision", "kind", "workspace", "actor", "at")
    list_filter = ("kind", "workspace")
