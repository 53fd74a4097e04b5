from django.contrib import admin

from memory.models import Fact, Link, Membership, MemoryEvent, Workspace


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "revision", "created_at")
    readonly_fields = ("revision", "created_at")


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "workspace", "role")
    list_filter = ("role", "workspace")


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    # Facts change only through services (gate, events); the admin shows them read-only.
    list_display = ("memory_id", "workspace", "segment", "tier", "lifecycle", "origin_key", "source_type", "created_at")
    list_filter = ("workspace", "segment", "tier", "lifecycle", "classification", "origin_kind")
    search_fields = ("memory_id", "subject_key")
    readonly_fields = ("plaintext_content",)
    exclude = ("sealed_content", "sealed_metadata")

    @admin.display(description="content")
    def plaintext_content(self, obj: Fact) -> str:
        return obj.content if obj.is_readable else "(unreadable: the origin's key was destroyed)"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    list_display = ("from_fact", "kind", "to_fact", "dangling_target", "workspace")
    list_filter = ("kind", "workspace")
    raw_id_fields = ("from_fact", "to_fact")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(MemoryEvent)
class MemoryEventAdmin(admin.ModelAdmin):
    list_display = ("revision", "kind", "workspace", "actor", "at")
    list_filter = ("kind", "workspace")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
