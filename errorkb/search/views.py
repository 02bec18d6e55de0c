"""GET /api/search?q= and the /search/ page: search() as JSON and as HTML.

Both count the request against the client's throttle before anything else
(errorkb.http.throttles), so a client over the limit costs no search.
"""

from urllib.parse import urlencode

from django import forms
from django.shortcuts import render
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, generics, serializers
from rest_framework.response import Response
from rest_framework.settings import api_settings

from errorkb.http.api import ErrorBodySerializer, KnownQueryParametersMixin
from errorkb.http.methods import SAFE_METHODS, answers
from errorkb.http.throttles import SearchThrottle, ThrottlingMixin, check_throttle
from errorkb.kb.models import ErrorEntry
from errorkb.verification.state.per_release import ReleaseState

from .index import MAX_RANKED, SearchHit, SearchPage, search
from .snippets import FIELDS

MAX_QUERY = 500
PAGE_SIZE = 20
# Any text but NUL, which PostgreSQL cannot hold: the pattern the document states is
# exactly what is refused (the escape reads the same to Python and to ECMA regexes).
QUERY_PATTERN = r"^[^\u0000]+$"


class SearchQuerySerializer(serializers.Serializer):
    """The words to search for."""

    q = serializers.RegexField(
        QUERY_PATTERN,
        max_length=MAX_QUERY,
        trim_whitespace=False,
        help_text="Words of the error message, its explanation, causes, fixes, tags or file.",
    )


class SnippetSerializer(serializers.Serializer):
    """Part of one field of the entry, as plain text: escaped as HTML, the matches in <mark>."""

    field = serializers.ChoiceField(choices=list(FIELDS))
    html = serializers.CharField()
    text = serializers.CharField(help_text="The same part without the marks.")


class SearchResultSerializer(serializers.Serializer):
    """One published entry that matched, best first."""

    id = serializers.CharField(source="entry.id")
    message = serializers.CharField(source="entry.error_message")
    repo = serializers.CharField(source="entry.repository.full_name")
    url = serializers.SerializerMethodField(help_text="The entry's page.")
    summary = serializers.CharField(
        source="entry.summary", help_text="What happened and what to do, in plain words."
    )
    state = serializers.ChoiceField(
        source="state.state",
        choices=ReleaseState.choices,
        help_text="Entry-wide: the state of its claims (the raised ones when it has any).",
    )
    stateSummary = serializers.CharField(
        source="state.label",
        help_text='Where and with what burn raises it, and what not: "raised in 0.20.0-pre.1 '
        '– 0.20.0-pre.5 with ... (not yet reproduced); burn never prints it with ...".',
    )
    score = serializers.FloatField(
        help_text="How well the words match; higher is better, within one search. Results "
        "come with those whose message holds every word first, then by state (verified "
        "first, unreachable last), then by score."
    )
    snippets = SnippetSerializer(
        many=True, help_text="One or two fields past the message that match; else the message."
    )

    def get_url(self, hit: SearchHit) -> str:
        address = hit.entry.get_absolute_url()  # "" for a row no address can hold
        return self.context["request"].build_absolute_uri(address) if address else ""


class SearchPagination(api_settings.DEFAULT_PAGINATION_CLASS):
    # The API's own strict pages (settings), with a page size of the reader's choosing.
    page_size = PAGE_SIZE
    page_size_query_param = "pageSize"
    max_page_size = 100

    def get_paginated_response(self, data):
        # DRF's body, and whether more match than the count counts (then only those pages).
        found = self.page.paginator.object_list.page
        return Response(
            {
                "count": found.count,
                "countCapped": found.count_capped,
                "searchedFor": found.searched_for,
                "corrected": found.searched_for is not None,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        capped = {
            "type": "boolean",
            "description": f"More than count ({MAX_RANKED}) match: only the first "
            f"{MAX_RANKED} are ranked and paged.",
        }
        searched = {
            "type": "string",
            "nullable": True,
            "description": "The words searched when some of q's were corrected (chekpoint: "
            "checkpoint); null when q's own words were.",
        }
        corrected = {"type": "boolean", "description": "Whether q's words were corrected."}
        properties = paginated["properties"]
        paginated["properties"] = {
            "count": properties.pop("count"),
            "countCapped": capped,
            "searchedFor": searched,
            "corrected": corrected,
        }
        paginated["properties"].update(properties)
        paginated["required"] = [*paginated["required"], "countCapped", "searchedFor", "corrected"]
        return paginated


class _FoundPage:
    """The one page search() found, as the sequence DRF's paginator pages.

    The paginator asks for the count, then for the slice at the page's offset: the
    search already ran for exactly that page, so both come from it.
    """

    ordered = True

    def __init__(self, page: SearchPage):
        self.page = page

    def count(self) -> int:
        return self.page.count

    def __getitem__(self, part: slice) -> list[SearchHit]:
        return self.page.hits


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorBodySerializer, description=description)


@extend_schema(
    parameters=[
        SearchQuerySerializer,
        OpenApiParameter(
            "Retry-After", int, OpenApiParameter.HEADER, required=True, response=[429]
        ),
    ],
    responses={
        200: SearchResultSerializer(many=True),
        400: _error(
            "No q, an empty one, one over 500 characters, a bad page or an unknown parameter."
        ),
        404: _error("No page with that number."),
        429: _error("Too many searches from this client: try again after Retry-After seconds."),
    },
)
class SearchAPI(ThrottlingMixin, KnownQueryParametersMixin, generics.GenericAPIView):
    """Published entries matching every word of q, best first, with highlighted snippets."""

    query_parameters = tuple(SearchQuerySerializer().fields)
    serializer_class = SearchResultSerializer
    pagination_class = SearchPagination
    throttle_classes = [SearchThrottle]  # first of all: a bad request counts too

    def get_queryset(self):
        # What search() reads; named so the schema knows the model of the results.
        return ErrorEntry.objects.published()

    def get(self, request):
        params = SearchQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        size = self.paginator.get_page_size(request)
        number = self.paginator.get_page_number(request, None)
        found = search(params.validated_data["q"], limit=size, offset=(number - 1) * size)
        hits = self.paginate_queryset(_FoundPage(found))
        return self.get_paginated_response(self.get_serializer(hits, many=True).data)


class SearchForm(forms.Form):
    q = forms.CharField(label="Search", max_length=MAX_QUERY, strip=False)
    page = forms.IntegerField(min_value=1, required=False)


@answers(*SAFE_METHODS)
def search_page(request):
    """The search form and, for a query, one page of results."""
    if "q" not in request.GET:
        return render(request, "search/search.html", {"form": SearchForm()})
    try:
        check_throttle(request, SearchThrottle)
    except exceptions.Throttled as refused:
        response = _render(request, SearchForm(request.GET), status=429, error=str(refused.detail))
        response["Retry-After"] = str(refused.wait)
        return response
    form = SearchForm(request.GET)
    if not form.is_valid():
        return _render(request, form, status=400)
    number = form.cleaned_data["page"] or 1
    found = search(form.cleaned_data["q"], limit=PAGE_SIZE, offset=(number - 1) * PAGE_SIZE)
    query = form.cleaned_data["q"]
    return _render(
        request,
        form,
        found=found,
        previous_url=_page_url(query, number - 1) if number > 1 else None,
        next_url=_page_url(query, number + 1) if number * PAGE_SIZE < found.count else None,
    )


def _page_url(query: str, number: int) -> str:
    return "?" + urlencode({"q": query, "page": number})


def _render(request, form: SearchForm, *, status: int = 200, **context):
    context = {"form": form, **context}
    return render(request, "search/search.html", context, status=status)
