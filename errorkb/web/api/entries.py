"""The read-only JSON API: entries as records, in the dataset's own schema."""

from dataclasses import replace
from functools import partial

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers

from errorkb.http.api import (
    CONDITIONAL_GET_PARAMETERS,
    ENTRY_ID,
    IdsFirstPaginator,
    KnownQueryParametersMixin,
    PageNumberPagination,
    conditional_get_responses,
    entry_or_404,
)
from errorkb.kb.models import ErrorEntry
from errorkb.kb.models.entries import with_record_lists
from errorkb.kb.record.names import REPO_RE, TAG_RE, page_address
from errorkb.kb.record.schema import Record, openapi_pattern, to_record
from errorkb.upstream.scanned_releases import scanned_releases
from errorkb.verification.models import VERIFIED_MEANS, State
from errorkb.verification.state.judging import verification_of
from errorkb.verification.state.per_release import (
    NOT_RAISED,
    RAISED,
    Claim,
    ReleaseState,
    UnknownRelease,
    claims_for,
    claims_of_entries,
    entry_state,
    entry_summary,
    release_asked,
    state_at,
    with_scenario_flag,
)
from errorkb.verification.state.stored import in_state, stored_state, with_stored_state

from .runs import VerificationSerializer

# Any text but NUL, which Django's form fields refuse and PostgreSQL cannot store. The escape
# reads the same to Python's re and to the ECMA regexes an OpenAPI client uses.
_NO_NUL = r"^[^\u0000]+$"


class RecordSerializer(serializers.Serializer):
    """An entry as its record (record.schema.Record declares it, for the OpenAPI document too),
    then the keys a subclass declares beside it."""

    def to_representation(self, instance: ErrorEntry) -> dict:
        return {**to_record(instance), **super().to_representation(instance)}


class RecordSchema(OpenApiSerializerExtension):
    """The OpenAPI document describes RecordSerializer by record.schema.Record's JSON schema,
    and the fields a subclass declares beside the record as drf-spectacular maps them.

    Pydantic writes JSON Schema; the document is OpenAPI 3.0, which says null by
    `nullable` rather than by a null type, so the schema is restated in its terms.
    """

    target_class = RecordSerializer

    def get_name(self, auto_schema, direction):
        return "ErrorRecord"

    def map_serializer(self, auto_schema, direction):
        schema = Record.model_json_schema(
            ref_template="#/components/schemas/{model}", mode="serialization"
        )
        for name, row in schema.pop("$defs", {}).items():
            component = ResolvedComponent(
                name=name, type=ResolvedComponent.SCHEMA, object=name, schema=_openapi_30(row)
            )
            auto_schema.registry.register_on_missing(component)
        record = _openapi_30(schema)
        beside = super().map_serializer(auto_schema, direction)
        record["properties"].update(beside.get("properties", {}))
        record["required"] = [*record.get("required", []), *beside.get("required", [])]
        return record


def _openapi_30(schema: dict) -> dict:
    """A JSON Schema of pydantic's in OpenAPI 3.0's terms: nullable, enum, no titles."""
    schema.pop("title", None)
    if "const" in schema:  # JSON Schema's, which OpenAPI 3.0 states as a single choice
        schema["enum"] = [schema.pop("const")]
    for value in schema.get("properties", {}).values():
        _openapi_30(value)
    if isinstance(schema.get("items"), dict):
        _openapi_30(schema["items"])
    choices = schema.pop("anyOf", None)
    if choices:
        (value,) = [choice for choice in choices if choice != {"type": "null"}]
        schema.update({"allOf": [value]} if "$ref" in value else _openapi_30(value))
        if len(choices) > 1:
            schema["nullable"] = True
    return schema


class ListedRecordSerializer(RecordSerializer):
    """An entry of the list: its record, and its state per release summed up beside it."""

    state = serializers.SerializerMethodField(
        help_text="The entry-wide state its claims per release and set-up sum to."
    )
    stateSummary = serializers.SerializerMethodField(
        help_text="The entry-wide sentence: where and with what burn raises it."
    )

    @extend_schema_field(serializers.ChoiceField(choices=ReleaseState.choices))
    def get_state(self, entry: ErrorEntry) -> str:
        return entry_state(self._claims(entry)).value

    def get_stateSummary(self, entry: ErrorEntry) -> str:
        return entry_summary(entry, self._claims(entry))

    def _claims(self, entry: ErrorEntry) -> list[Claim]:
        # The list reads every entry's claims of the page at once (ErrorList).
        return self.context["claims"][entry.pk]


class ListedRecordSchema(RecordSchema):
    """The list's record: the record's schema with the keys ListedRecordSerializer declares."""

    target_class = ListedRecordSerializer

    def get_name(self, auto_schema, direction):
        return "ListedErrorRecord"


class ClaimSerializer(serializers.Serializer):
    """One claim: with a set-up, in a range of releases, burn raises the message or not."""

    versions = serializers.CharField(help_text='e.g. "0.20.0-pre.1 – 0.20.0-pre.5"')
    setup = serializers.CharField()
    outcome = serializers.ChoiceField(choices=[RAISED, NOT_RAISED])
    state = serializers.ChoiceField(choices=ReleaseState.choices)
    seen = serializers.CharField(
        allow_blank=True, help_text="What burn prints instead, when not raised."
    )
    proof = serializers.CharField(
        allow_blank=True,
        help_text="The scenario that decided it, when, what it observed; or what burn "
        "prints instead; empty when nothing says.",
    )


class AtReleaseSerializer(serializers.Serializer):
    """The state at the release asked for (?release=)."""

    release = serializers.CharField()
    state = serializers.ChoiceField(choices=ReleaseState.choices)
    label = serializers.CharField(help_text="The state at that release, in a sentence.")


class RelatedEntrySerializer(serializers.Serializer):
    """A related entry, in either direction, with where to read it."""

    id = serializers.CharField()
    errorMessage = serializers.CharField(source="error_message")
    url = serializers.SerializerMethodField()

    def get_url(self, entry: ErrorEntry) -> str:
        return page_address("api-error-detail", pk=entry.id)


class ErrorResponseSerializer(serializers.Serializer):
    """GET /api/errors/<id>: the record, the dataset version, and new keys beside them."""

    record = RecordSerializer(source="*")
    datasetVersion = serializers.CharField(source="dataset_version")
    relatedEntries = RelatedEntrySerializer(source="related_entries", many=True)
    verification = serializers.SerializerMethodField()
    states = serializers.SerializerMethodField()
    stateSummary = serializers.SerializerMethodField()
    stateAtRelease = serializers.SerializerMethodField()
    verifiedMeans = serializers.SerializerMethodField(
        help_text="What a verification is: a run of errorkb's reference trainer, a PyTorch "
        "mirror of burn's checkpointing, not a run of burn itself."
    )
    runsUrl = serializers.SerializerMethodField()

    @extend_schema_field(VerificationSerializer)
    def get_verification(self, entry: ErrorEntry) -> dict:
        # Its per-scenario details are derived; its state is the stored one lists filter by.
        verification = replace(self._verification(entry), state=stored_state(entry))
        return VerificationSerializer(verification).data

    @extend_schema_field(ClaimSerializer(many=True))
    def get_states(self, entry: ErrorEntry) -> list:
        return ClaimSerializer(self._claims(entry), many=True).data

    def get_stateSummary(self, entry: ErrorEntry) -> str:
        return entry_summary(entry, self._claims(entry))

    @extend_schema_field(AtReleaseSerializer(allow_null=True))
    def get_stateAtRelease(self, entry: ErrorEntry) -> dict | None:
        release = self.context.get("release")
        if release is None:
            return None
        return AtReleaseSerializer(state_at(entry, release, self._claims(entry))).data

    def _verification(self, entry: ErrorEntry):
        # Derived once for the verification and the claims alike.
        if "verification" not in self.context:
            self.context["verification"] = verification_of(entry)
        return self.context["verification"]

    def _claims(self, entry: ErrorEntry) -> list[Claim]:
        if "claims" not in self.context:
            self.context["claims"] = claims_for(entry, self._verification(entry))
        return self.context["claims"]

    def get_verifiedMeans(self, entry: ErrorEntry) -> str:
        return VERIFIED_MEANS

    def get_runsUrl(self, entry: ErrorEntry) -> str:
        return page_address("api-error-runs", pk=entry.id)


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
        ListedRecordSerializer(many=True),
        errors={
            400: "A parameter the document does not allow: each one named in `errors`.",
            404: "No page with that number.",
        },
    ),
)
class ErrorList(KnownQueryParametersMixin, generics.ListAPIView):
    """Published entries as records, ordered by id, each with its state beside it."""

    serializer_class = ListedRecordSerializer
    pagination_class = EntryPagination
    filterset_class = EntryFilter

    def get_queryset(self):
        return with_scenario_flag(ErrorEntry.objects.published().as_records()).order_by("id")

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        if page is None:
            return None
        page = with_record_lists(list(page))
        # Every entry's claims at once: a fixed number of queries for the page.
        self.claims = claims_of_entries(page)
        return page

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "claims": getattr(self, "claims", {})}


RELEASE = OpenApiParameter(
    "release",
    str,
    pattern=r"^(main|v?\d+(\.\d+)*(-[0-9A-Za-z.]+)?)$",
    description="A release of burn (0.19.1, 0.22.0-pre.1, main): stateAtRelease answers "
    "the entry's state there.",
)


@extend_schema(
    parameters=[ENTRY_ID, RELEASE, *CONDITIONAL_GET_PARAMETERS],
    responses=conditional_get_responses(
        ErrorResponseSerializer,
        errors={
            400: "A release that is not one of burn's, or a parameter it does not take.",
            404: "No published entry has that id.",
        },
    ),
)
class ErrorDetail(KnownQueryParametersMixin, generics.RetrieveAPIView):
    """One published entry: {"record": {...}, "datasetVersion": "..."}."""

    pagination_class = None  # one record: no pages to ask for
    query_parameters = ("release",)

    serializer_class = ErrorResponseSerializer

    def get_object(self):
        entries = with_stored_state(ErrorEntry.objects.published().for_record())
        entry = entry_or_404(entries, self.kwargs["pk"])
        self.release = self._release(entry)
        return entry

    def _release(self, entry: ErrorEntry) -> str | None:
        """The release asked for, as the records name it; a 400 for no release of burn's."""
        asked = self.request.query_params.get("release")
        if asked is None:
            return None
        try:
            return release_asked(asked, scanned_releases(entry.repository))
        except UnknownRelease as error:
            raise serializers.ValidationError({"release": [str(error)]}) from error

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "release": getattr(self, "release", None)}
