"""Accounts API: who am I, and my API tokens."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.errors import AccountErrorCode
from accounts.roles import roles_of
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import COMMON_ERRORS, ErrorSerializer, error_codes

TOKEN_ERRORS = error_codes("Token", AccountErrorCode)


class MeApi(APIView):
    operation = "account.read"
    error_codes = COMMON_ERRORS

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        roles = serializers.ListField(child=serializers.CharField())

    @extend_schema(responses=OutputSerializer, summary="The authenticated user and their roles")
    def get(self, request):
        user = request.user
        data = {"id": user.pk, "username": user.username, "roles": sorted(roles_of(user))}
        return Response(self.OutputSerializer(data).data)


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class TokenListCreateApi(APIView):
    operations = {"GET": "tokens.list", "POST": "tokens.create"}
    error_codes = TOKEN_ERRORS

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        expires_in_days = serializers.IntegerField(
            min_value=1, max_value=3650, required=False, allow_null=True
        )

        def validate_name(self, value: str) -> str:
            if any(not char.isprintable() for char in value):
                raise serializers.ValidationError("A token name may not contain control characters.")
            return value

    class CreatedSerializer(TokenOutputSerializer):
        token = serializers.CharField(help_text="The secret. It is shown only in this response.")

    @extend_schema(responses=paginated(TokenOutputSerializer), summary="List my API tokens")
    def get(self, request):
        return page_response(request, self, selectors.tokens_of(user=request.user), TokenOutputSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={
            201: CreatedSerializer,
            409: OpenApiResponse(
                ErrorSerializer,
                "`token_name_taken`: a live token has this name; `token_limit_reached`: too many live tokens.",
            ),
        },
        summary="Create an API token",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, secret = services.token_create(user=request.user, **data.validated_data)
        body = TokenOutputSerializer(token).data | {"token": secret}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenRevokeApi(APIView):
    operation = "tokens.revoke"
    error_codes = TOKEN_ERRORS

    @extend_schema(
        request=None,
        responses={204: None, 409: OpenApiResponse(ErrorSerializer, "The token is already revoked.")},
        summary="Revoke one of my API tokens",
    )
    def delete(self, request, token_id: int):
        services.token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
