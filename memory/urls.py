from django.urls import path

from memory import views

app_name = "memory"

urlpatterns = [
    path("w/<slug:workspace>/", views.workspace_overview, name="workspace-overview"),
    path("w/<slug:workspace>/facts/", views.fact_list, name="fact-list"),
    path("w/<slug:workspace>/facts/bulk/", views.fact_bulk, name="fact-bulk"),
    path("w/<slug:workspace>/facts/<str:memory_id>/", views.fact_detail, name="fact-detail"),
    path("w/<slug:workspace>/facts/<str:memory_id>/panel/", views.fact_panel, name="fact-panel"),
    path("w/<slug:workspace>/facts/<str:memory_id>/<str:action>/", views.fact_action, name="fact-action"),
    path("w/<slug:workspace>/graph/", views.memory_graph, name="memory-graph"),
    path("w/<slug:workspace>/recall/", views.recall_playground, name="recall-playground"),
    path("w/<slug:workspace>/events/", views.event_list, name="event-list"),
]
