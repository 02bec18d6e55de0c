"""What every JSON API view shares: one error body, strict pages, and how both are documented.

Below the web apps, so that every one with an API (web's entries and runs, lookup,
search) answers with the same error body and the same pages.
"""

import hashlib
import re

from django.core.cache import caches
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.urls import is_valid_path
from django.utils.functional import cached_property
from django.views import defaults
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, pagination, serializers, views
from rest_framework.settings import api_settings

from errorkb.kb.changes import content_token
from errorkb.kb.record.schema import ID_RE, openapi_pattern

from .bodies import MESSAGE_CHARS, as_list, clipped

_WHOLE_NUMBER = re.compile(r"[0-9]+")
# What a page number or size of more than 18 digits is taken as: past every page and every
# maximum. Never converted: Python refuses over 4,300 digits with an exception (a 500).
_BEYOND = 10**18


class ErrorBodySerializer(serializers.Serializer):
    """The body of every 4xx the API answers itself."""

    detail = serializers.CharField(help_text="What went wrong.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="For a 400, the messages for each parameter refused; otherwise empty.",
    )


def error_body(detail: str, errors: dict[str, list[str]] | None = None) -> dict:
    """The error body, written by ErrorBodySerializer: `detail` clipped, `errors` as given."""
    return ErrorBodySerializer({"detail": clipped(detail), "errors": errors or {}}).data


def exception_handler(exc: Exception, context: dict) -> views.Response | None:
    """DRF's handler, with every answer reshaped into the shared error body."""
    response = views.exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = exc.detail
        if not isinstance(errors, dict):
            errors = {api_settings.NON_FIELD_ERRORS_KEY: errors}
        errors = {
            str(name)[:MESSAGE_CHARS]: [clipped(message) for message in as_list(messages)]
            for name, messages in errors.items()
        }
        response.data = error_body(exceptions.ValidationError.default_detail, errors)
    else:
        response.data = error_body(response.data["detail"])
    return response


class KnownQueryParametersMixin:
    """An API view that answers a query parameter it does not take with a 400 naming it.

    A view takes its filterset's filters, its paginator's page parameters and those it
    names in `query_parameters`: the same ones its OpenAPI operation lists.
    """

    query_parameters: tuple[str, ...] = ()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        accepted = self.accepted_query_parameters()
        unknown = [name for name in request.query_params if name not in accepted]
        if unknown:
            takes = ", ".join(sorted(accepted)) if accepted else "none"
            message = f"Not a parameter of this address. It takes: {takes}."
            raise exceptions.ValidationError({name: [message] for name in unknown})

    def accepted_query_parameters(self) -> set[str]:
        accepted = set(self.query_parameters)
        filterset = getattr(self, "filterset_class", None)
        if filterset is not None:
            accepted |= set(filterset.base_filters)
        paginator = getattr(self, "paginator", None)
        if paginator is not None:
            accepted |= {paginator.page_query_param, paginator.page_size_query_param} - {None}
        return accepted


def not_found(request, exception=None) -> HttpResponse:
    """Django's 404 handler: under /api/, the API's error body; elsewhere the 404 page."""
    if not request.path.startswith("/api/"):
        return defaults.page_not_found(request, exception)
    detail = f"No API address {request.path!r}: the addresses are listed at /api/docs/."
    bare = request.path_info.rstrip("/")
    if bare != request.path_info and is_valid_path(bare):
        detail = f"No API address {request.path!r}: the address is {bare} (no trailing slash)."
    return JsonResponse(error_body(detail), status=404)


def entry_or_404(queryset, pk: str):
    """The entry with this id in `queryset`, else a 404; an impossible id is not looked up."""
    return found_or_404(pk, lambda pk: queryset.filter(pk=pk).first())


def found_or_404(pk: str, find):
    """What find(pk) finds, else a 404; an impossible id is not looked up."""
    entry = find(pk) if ID_RE.fullmatch(pk) else None
    if entry is None:
        raise exceptions.NotFound(f"No published error entry has the id {pk!r}.")
    return entry


class KeptCountPaginator(Paginator):
    """Django's paginator, its count kept in the pages cache under the content token.

    Counting 100,000 published entries is most of a list page's time, and
    the count can change only with a committed write, which moves the token. The key
    holds the list's SQL with its parameters, so each filter has its own count. `token`:
    the content token when the caller has read it already (caching.conditional has).
    """

    def __init__(self, *args, token: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.token = token

    @cached_property
    def count(self) -> int:
        token = content_token() if self.token is None else self.token
        query = f"{token}|{self.object_list.query}"
        key = "count:" + hashlib.blake2b(query.encode(), digest_size=16).hexdigest()
        return caches["pages"].get_or_set(key, self.object_list.count)


class IdsFirstPaginator(KeptCountPaginator):
    """KeptCountPaginator, slicing a page out of the ordered ids before loading its rows.

    A deep page's OFFSET then walks an index of ids, not whole rows: the rows (and their
    prefetches) are read for the page alone, in the queryset's own order. For querysets
    whose order is unique (ends with the pk).
    """

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        ids = self.object_list.values("pk")[bottom:top]
        return self._get_page(self.object_list.filter(pk__in=ids), number, self)


class PageNumberPagination(pagination.PageNumberPagination):
    """Numbered pages that refuse, with a 400, a number the OpenAPI document does not allow."""

    def get_page_number(self, request, paginator) -> int:
        return _whole_number(request, self.page_query_param, default=1)

    def get_page_size(self, request) -> int:
        if not self.page_size_query_param:
            return self.page_size
        return _whole_number(
            request, self.page_size_query_param, default=self.page_size, maximum=self.max_page_size
        )

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param and self.max_page_size:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters


def _whole_number(request, name: str, *, default: int, maximum: int | None = None) -> int:
    value = request.query_params.get(name)
    if value is None:
        return default
    number = 0
    if _WHOLE_NUMBER.fullmatch(value):
        digits = value.lstrip("0")
        number = int(digits or "0") if len(digits) <= 18 else _BEYOND
    if number < 1 or (maximum is not None and number > maximum):
        bounds = f"from 1 to {maximum}" if maximum else "of 1 or more"
        raise exceptions.ValidationError({name: [f"Give a whole number {bounds}."]})
    return number


ENTRY_ID = OpenApiParameter(
    "id",
    str,
    OpenApiParameter.PATH,
    pattern=openapi_pattern(ID_RE),
    description="The entry's id: 16 lowercase hex characters.",
)

# Conditional GET (http.caching.conditional): the validators every answer carries, and the 304.
CONDITIONAL_GET_PARAMETERS = [
    OpenApiParameter(
        "If-None-Match",
        str,
        OpenApiParameter.HEADER,
        description="The ETag of a copy you hold: 304 while it is current.",
    ),
    OpenApiParameter("ETag", str, OpenApiParameter.HEADER, required=True, response=[200, 304]),
]


def conditional_get_responses(ok, *, errors: dict[int, str]) -> dict:
    """The answers of a view behind http.caching.conditional: `ok`, 304, `errors`, and 414."""
    return {
        200: ok,
        304: OpenApiResponse(description="Not Modified: the copy you hold is current."),
        **{
            status: OpenApiResponse(ErrorBodySerializer, description=description)
            for status, description in errors.items()
        },
        # gunicorn answers this before Django runs, so its body is gunicorn's HTML.
        (414, "text/html"): OpenApiResponse(
            OpenApiTypes.STR,
            description="URI Too Long: the request line is longer than the server reads.",
        ),
    }
