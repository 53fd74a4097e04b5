"""Changing and resetting one's own password: Django's views, with the old password checked through
the login throttle, so a stolen session cannot guess it faster than the login page allows."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.urls import path


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """The old password is checked by `authenticate()`: a wrong one counts as a failed login of that
    username from that address (django-axes), and a locked-out pair gets the lockout page."""

    def __init__(self, user, *args, request=None, **kwargs) -> None:
        self.request = request
        super().__init__(user, *args, **kwargs)

    def clean_old_password(self):
        old_password = self.cleaned_data["old_password"]
        if authenticate(self.request, username=self.user.get_username(), password=old_password) != self.user:
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password


class PasswordChangeView(auth_views.PasswordChangeView):
    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}


def _reset_days() -> dict:
    return {"timeout_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)}


urlpatterns = [
    path("password/change/", PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(extra_context=_reset_days()),
         name="password_reset_done"),  # fmt: skip
    path("password/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(),
         name="password_reset_confirm"),  # fmt: skip
    path("password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
