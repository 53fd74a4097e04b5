from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from tideline_site import health, home, metrics

urlpatterns = [
    # For load balancers and orchestrators: unauthenticated, cheap, no content (tideline_site/health.py).
    # (`health.ProbeMiddleware` answers them first, with or without the trailing slash.)
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),  # Prometheus, behind a token or an allow-list
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("tideline_site.accounts")),  # changing and resetting one's password
    path("admin/", admin.site.urls),
    path("api/v1/", include("governance.api.urls")),
    path("", home.home, name="home"),
    path("inbox/count/", home.inbox_count, name="inbox-count"),  # what waits for the person, and their workspaces (the site composes both apps)
    path("", include("memory.urls")),
    path("", include("governance.urls")),
]

handler404 = "tideline_site.errors.not_found"
handler500 = "tideline_site.errors.server_error"
handler403 = "tideline_site.errors.forbidden"
