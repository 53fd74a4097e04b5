"""Django's admin, for superusers only.

Console users (owners, approvers, admins of a workspace) work in the console, whose views apply
the workspace rules and log every change as an event. The admin bypasses both, so only accounts
made with `python manage.py createsuperuser` may open it; `is_staff` alone is not enough.
"""

from __future__ import annotations

from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError


class SuperuserAuthenticationForm(AdminAuthenticationForm):
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_login": "Please enter the username and password of a superuser account "
        "(made with `python manage.py createsuperuser`). Both fields may be case-sensitive.",
    }

    def confirm_login_allowed(self, user) -> None:
        super().confirm_login_allowed(user)
        if not user.is_superuser:
            raise ValidationError(self.error_messages["invalid_login"], code="invalid_login",
                                  params={"username": self.username_field.verbose_name})  # fmt: skip


class SuperuserAdminSite(AdminSite):
    site_header = "Tideline administration (superusers only)"
    login_form = SuperuserAuthenticationForm

    def has_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_superuser

