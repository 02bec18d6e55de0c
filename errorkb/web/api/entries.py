"""The read-only JSON API: entries as records, in the dataset's own schema."""

from functools import partial

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers

from errorkb.http.api import (
    CONDITIONAL_GET_PARAMETERS,
    ENTRY_ID,
    IdsFirstPaginator,
    PageNumberPagination,
    conditional_get_responses,
    entry_or_404,
    openapi_pattern,
)
from errorkb.kb.models import ErrorEntry
from errorkb.kb.models.entries import with_record_lists
from errorkb.kb.records import (
    APPLIES_TO_KEY,
    APPLIES_TO_OUTCOMES,
    FIELDS,
    RAISED_IN_KEY,
    RELATED_KEY,
    REMOVED_KEY,
    REPO_RE,
    SHA_RE,
    TAG_RE,
    to_record,
)
from errorkb.kb.upstream_keys import RELEASE_RE
from errorkb.verification.models import State
from errorkb.verification.state import verification_of
from errorkb.verification.stored import in_state, stored_state, with_stored_state

from .runs import VerificationSerializer

# Any text but NUL, which Django's form fields refuse and PostgreSQL cannot store. The escape
# reads the same to Python's re and to the ECMA regexes an OpenAPI client uses.
_NO_NUL = r"^[^\u0000]+$"

_SCHEMA_FIELDS = {
    "str": lambda f: serializers.CharField(allow_null=f.nullable),
    "int": lambda f: serializers.IntegerField(allow_null=f.nullable),
    "datetime": lambda f: serializers.DateTimeField(allow_null=f.nullable),
    "list": lambda f: serializers.ListField(child=serializers.CharField()),
}


class AppliesToRowSerializer(serializers.Serializer):
    """Whether the message is raised in some releases with some set-up, and the line saying so."""

    versions = serializers.CharField(help_text='Releases, e.g. "0.20.0 – main".')
    setup = serializers.CharField(help_text="The set-up, e.g. a hand-built checkpointer.")
    outcome = serializers.ChoiceField(choices=APPLIES_TO_OUTCOMES)
    seen = serializers.CharField(
        help_text="What the reader sees: the message when raised, else what appears instead."
    )
    filePath = serializers.CharField()
    lineNumber = serializers.IntegerField(min_value=1)
    commit = serializers.RegexField(SHA_RE.pattern)
    note = serializers.CharField(required=False)


class RaisedInRowSerializer(serializers.Serializer):
    """A release that raises the message, and the line of its source that raises it."""

    release = serializers.RegexField(
        openapi_pattern(RELEASE_RE), help_text='The release, e.g. "0.19.1".'
    )
    commit = serializers.RegexField(SHA_RE.pattern, help_text="The release's commit.")
    filePath = serializers.CharField()
    lineNumber = serializers.IntegerField(min_value=1)


class RemovedUpstreamSerializer(serializers.Serializer):
    """A scan of `commit` no longer finds the message; the last commit and release raising it."""

    commit = serializers.RegexField(SHA_RE.pattern, help_text="The scanned commit.")
    lastCommit = serializers.RegexField(SHA_RE.pattern, allow_null=True)
    lastRelease = serializers.RegexField(openapi_pattern(RELEASE_RE), allow_null=True)


def _record_fields() -> dict:
    # Declared only so the OpenAPI document describes the record; records.py renders it.
    fields = {f.key: _SCHEMA_FIELDS[f.kind](f) for f in FIELDS}
    fields[RELATED_KEY] = serializers.ListField(
        child=serializers.CharField(), help_text="Ids of related entries, most relevant first."
    )
    fields[APPLIES_TO_KEY] = AppliesToRowSerializer(
        many=True,
        required=False,
        help_text="Releases and set-ups; absent when the entry does not state them.",
    )
    fields[RAISED_IN_KEY] = RaisedInRowSerializer(
        many=True,
        required=False,
        help_text="Each scanned release raising the message, oldest first; absent until a "
        "release scan.",
    )
    fields[REMOVED_KEY] = RemovedUpstreamSerializer(
        required=False,
        allow_null=True,
        help_text="Set when a scan no longer finds the message; absent while it is raised.",
    )
    return fields


class _RecordRenderer(serializers.Serializer):
    def to_representation(self, instance: ErrorEntry) -> dict:
        return to_record(instance)


RecordSerializer = type(
    "ErrorRecord",
    (_RecordRenderer,),
    {
        "__module__": __name__,
        "__doc__": "An error entry as a dataset record (schemaVersion 2).",
        **_record_fields(),
    },
)


class RelatedEntrySerializer(serializers.Serializer):
    """A related entry, in either direction, with where to read it."""

    id = serializers.CharField()
    errorMessage = serializers.CharField(source="error_message")
    url = serializers.SerializerMethodField()

    def get_url(self, entry: ErrorEntry) -> str:
        return reverse("api-error-detail", kwargs={"pk": entry.id})


class ErrorResponseSerializer(serializers.Serializer):
    """GET /api/errors/<id>: the record, the dataset version, and new keys beside them."""

    record = RecordSerializer(source="*")
    datasetVersion = serializers.CharField(source="dataset_version")
    relatedEntries = RelatedEntrySerializer(source="related_entries", many=True)
    verification = serializers.SerializerMethodField()
    runsUrl = serializers.SerializerMethodField()

    @extend_schema_field(VerificationSerializer)
    def get_verification(self, entry: ErrorEntry) -> dict:
        verification = verification_of(entry)
        # Its per-scenario details are derived; its state is the stored one lists filter by.
        verification.state = stored_state(entry)
        return VerificationSerializer(verification).data

    def get_runsUrl(self, entry: ErrorEntry) -> str:
        return reverse("api-error-runs", kwargs={"pk": entry.id})


def _matching(regex):
    def validate(value: str) -> None:
        # fullmatch: `$` alone would let a trailing newline through.
        if not regex.fullmatch(value):
            raise ValidationError(f"Must match {regex.pattern}.")

    return validate


class EntryFilterForm(forms.Form):
    """Refuses a filter given with an empty value, which the OpenAPI document does not allow."""

    def clean(self):
        for name in self.fields:
            if self.data.get(name) == "":
                self.add_error(name, "Give a value, or leave the parameter out.")
        return super().clean()


class EntryFilter(django_filters.FilterSet):
    # strip=False: the value filtered by is the value the document validates.
    repo = django_filters.CharFilter(
        method="filter_repo", strip=False, validators=[_matching(REPO_RE)]
    )
    tag = django_filters.CharFilter(
        method="filter_tag", strip=False, validators=[_matching(TAG_RE)]
    )
    severity = django_filters.ChoiceFilter(choices=ErrorEntry.Severity.choices)
    errorType = django_filters.CharFilter(field_name="error_type", strip=False)
    removedUpstream = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")], method="filter_removed_upstream"
    )
    verificationState = django_filters.ChoiceFilter(
        choices=State.choices, method="filter_verification_state"
    )

    class Meta:
        model = ErrorEntry
        fields = []
        form = EntryFilterForm

    def filter_repo(self, queryset, name, value):
        return queryset.for_repo(value)

    def filter_tag(self, queryset, name, value):
        return queryset.tagged(value)

    def filter_removed_upstream(self, queryset, name, value):
        return queryset.removed_upstream() if value == "true" else queryset.still_raised()

    def filter_verification_state(self, queryset, name, value):
        return in_state(queryset, value)


class EntryPagination(PageNumberPagination):
    django_paginator_class = IdsFirstPaginator
    page_size_query_param = "pageSize"
    max_page_size = 500

    def paginate_queryset(self, queryset, request, view=None):
        # The count is kept under the content token the list's validator has just read.
        token = getattr(request, "content_token", None)
        self.django_paginator_class = partial(IdsFirstPaginator, token=token)
        return super().paginate_queryset(queryset, request, view)


@extend_schema(
    parameters=[
        OpenApiParameter("repo", str, pattern=openapi_pattern(REPO_RE), description="owner/name"),
        OpenApiParameter("tag", str, pattern=openapi_pattern(TAG_RE)),
        OpenApiParameter("severity", str, enum=ErrorEntry.Severity.values),
        OpenApiParameter("errorType", str, pattern=_NO_NUL, description="e.g. panic, log"),
        OpenApiParameter(
            "removedUpstream",
            bool,
            description="true: only entries a scan no longer finds upstream; false: the others.",
        ),
        OpenApiParameter(
            "verificationState",
            str,
            enum=State.values,
            description="Only entries whose stored verification state is this.",
        ),
        *CONDITIONAL_GET_PARAMETERS,
    ],
    responses=conditional_get_responses(
        RecordSerializer(many=True),
        errors={
            400: "A parameter the document does not allow: each one named in `errors`.",
            404: "No page with that number.",
        },
    ),
)
class ErrorList(generics.ListAPIView):
    """Published entries as records, ordered by id."""

    serializer_class = RecordSerializer
    pagination_class = EntryPagination
    filterset_class = EntryFilter

    def get_queryset(self):
        return ErrorEntry.objects.published().as_records().order_by("id")

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        return None if page is None else with_record_lists(list(page))


@extend_schema(
    parameters=[ENTRY_ID, *CONDITIONAL_GET_PARAMETERS],
    responses=conditional_get_responses(
        ErrorResponseSerializer, errors={404: "No published entry has that id."}
    ),
)
class ErrorDetail(generics.RetrieveAPIView):
    """One published entry: {"record": {...}, "datasetVersion": "..."}."""

    serializer_class = ErrorResponseSerializer

    def get_object(self):
        entries = with_stored_state(ErrorEntry.objects.published().for_record())
        return entry_or_404(entries, self.kwargs["pk"])
