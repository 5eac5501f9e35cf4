from typing import Any

from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination


class PagePagination(PageNumberPagination):
    """Every list is paginated: `?page=N&page_size=M` (at most 500), `{count, next, previous, results}`."""

    page_size_query_param = "page_size"
    max_page_size = 500


def page_response(request, view, queryset, serializer_class: type[serializers.Serializer]):
    """The requested page of `queryset`, serialized, as every list endpoint answers."""
    paginator = PagePagination()
    page: list[Any] | None = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)


_paginated: dict[type, type] = {}


def paginated(serializer_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The schema of a page of `serializer_class` items, for `extend_schema(responses=...)` on a list."""
    if serializer_class not in _paginated:
        owner, _, name = serializer_class.__qualname__.rpartition(".")
        base = (owner.split(".")[-1].removesuffix("Api") if owner else "") + name.removesuffix("Serializer")
        _paginated[serializer_class] = type(
            f"Paginated{base}ListSerializer",
            (serializers.Serializer,),
            {
                "count": serializers.IntegerField(help_text="Items in the whole list."),
                "next": serializers.URLField(allow_null=True, help_text="The next page, or null."),
                "previous": serializers.URLField(allow_null=True, help_text="The previous page, or null."),
                "results": serializer_class(many=True),
            },
        )
    return _paginated[serializer_class]
