from django.contrib.admin.apps import AdminConfig


class TidelineAdminConfig(AdminConfig):
    """`django.contrib.admin` whose `admin.site` is the superuser-only site, so every app's
    `@admin.register` lands on it."""

    default_site = "tideline_site.admin_site.SuperuserAdminSite"
