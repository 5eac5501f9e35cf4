"""Reads for accounts."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Field, QuerySet

from accounts.models import ApiToken
from accounts.roles import roles_known
from vtt_site.sql import HandQuery, columns, field_of, instance


def tokens_of(*, user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def _token_query(connection: Any) -> tuple[str, list[Field]]:
    """The token, its user and one of the user's group names (a row per group, or one row with none)."""
    q = connection.ops.quote_name
    user_model = get_user_model()
    groups = user_model._meta.get_field("groups")
    group_model = Group  # a user's `groups` are always auth's groups, with any user model
    group_name = field_of(group_model, "name")
    token_columns, token_fields = columns("t", ApiToken, q)
    user_columns, user_fields = columns("u", user_model, q)
    user_pk = q(user_model._meta.pk.column)
    sql = (
        f"SELECT {token_columns}, {user_columns}, g.{q(group_name.column)} "
        f"FROM {q(ApiToken._meta.db_table)} t "
        f"JOIN {q(user_model._meta.db_table)} u ON u.{user_pk} = t.{q(ApiToken._meta.get_field('user').column)} "
        f"LEFT JOIN {q(groups.m2m_db_table())} ug ON ug.{q(groups.m2m_column_name())} = u.{user_pk} "
        f"LEFT JOIN {q(group_model._meta.db_table)} g "
        f"ON g.{q(group_model._meta.pk.column)} = ug.{q(groups.m2m_reverse_name())} "
        f"WHERE t.{q(ApiToken._meta.get_field('digest').column)} = %s"
    )
    return sql, [*token_fields, *user_fields, group_name]


_TOKEN = HandQuery(_token_query)


def token_with_roles(*, digest: str) -> ApiToken | None:
    """The token whose secret has this digest, with its user (`token.user`) and the user's role names
    (for accounts.roles) read in the same query, or None.

    Every API request with a token makes this lookup. Through the ORM it was two queries (the token with
    its user, then the user's groups) whose SQL Django compiled anew each time: about a quarter of the
    CPU of answering a question. Written once per process it is one query (decision 0033)."""
    rows = _TOKEN.rows([digest])
    if not rows:
        return None
    split = len(ApiToken._meta.concrete_fields)
    token = instance(ApiToken, rows[0][:split])
    token.user = instance(get_user_model(), rows[0][split:-1])
    roles_known(token.user, frozenset(row[-1] for row in rows if row[-1] is not None))
    return token
