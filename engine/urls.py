from django.urls import path

from engine import api

urlpatterns = [
    path("statistics/", api.StatisticsListCreateApi.as_view(), name="statistics"),
    path("statistics/<int:statistics_id>/", api.StatisticsDetailApi.as_view(), name="statistics-detail"),
    path("statistics/<int:statistics_id>/estimate/", api.EstimateApi.as_view(), name="statistics-estimate"),
]
