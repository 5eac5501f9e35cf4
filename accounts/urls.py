from django.urls import path

from accounts import api

urlpatterns = [
    path("me/", api.MeApi.as_view(), name="me"),
    path("tokens/", api.TokenListCreateApi.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", api.TokenRevokeApi.as_view(), name="token-revoke"),
]
