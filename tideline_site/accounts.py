"""One's own account: changing and resetting one's password (Django's views, with the old password
checked through the login throttle, so a stolen session cannot guess it faster than the login page
allows), and which e-mails one gets (governance/services/notifications.py)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.cache import never_cache

from governance.services import notifications


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


class NotificationsForm(forms.Form):
    email = forms.EmailField(required=False, max_length=254, label="E-mail address",
                             help_text="Where Tideline writes to you; leave empty for no e-mail at all.")  # fmt: skip
    approvals = forms.BooleanField(required=False, label="Tell me when a proposal or a durable promotion awaits my "
                                   "approval (where I am an approver)")  # fmt: skip
    review_digest = forms.BooleanField(required=False, label="Send me a daily digest of open review items (where I "
                                       "am an owner; nothing is sent for an empty queue)")  # fmt: skip


@never_cache
@login_required
def notifications_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    choice = notifications.preference(user)
    if request.method == "POST":
        form = NotificationsForm(request.POST)
        if form.is_valid():
            user.email = form.cleaned_data["email"]
            user.save(update_fields=["email"])
            notifications.set_preference(user, approvals=form.cleaned_data["approvals"],
                                         review_digest=form.cleaned_data["review_digest"])  # fmt: skip
            messages.success(request, "Saved." if user.email else "Saved. Without an address you get no e-mail.")
            return redirect("account-notifications")
    else:
        form = NotificationsForm(initial={"email": user.email, "approvals": choice.approvals,
                                          "review_digest": choice.review_digest})  # fmt: skip
    return render(request, "registration/notifications.html", {"form": form})


def _reset_days() -> dict:
    return {"timeout_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)}


urlpatterns = [
    path("account/notifications/", notifications_page, name="account-notifications"),
    path("password/change/", PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(extra_context=_reset_days()),
         name="password_reset_done"),  # fmt: skip
    path("password/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(),
         name="password_reset_confirm"),  # fmt: skip
    path("password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
