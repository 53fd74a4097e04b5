from django.urls import path

from memory import views

app_name = "memory"

urlpatterns = [
    path("", views.home, name="home"),
    path("w/<slug:workspace>/", views.workspace_overview, name="workspace-overview"),
]
