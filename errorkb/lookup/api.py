"""POST /api/lookup: a pasted text in, the matching entries out, as JSON."""

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from errorkb.http.api import ErrorBodySerializer

from .answers import lookup_answer
from .limits import RateLimited, charge_request
from .lookups import EmptyText, TextError, check_body_size, look_up


class StrictCharField(serializers.CharField):
    """A string and nothing else: DRF's CharField would take 12 for "12"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


EMPTY = str(EmptyText())


class LookupRequestSerializer(serializers.Serializer):
    text = StrictCharField(
        trim_whitespace=False,
        # Blank or only whitespace: the document says so with a pattern.
        error_messages={"blank": EMPTY},
        validators=[RegexValidator(r"\S", message=EMPTY)],
        help_text="The pasted text: a panic, a traceback, a log (at most 1 MiB in UTF-8).",
    )


class LocationSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="The path as the text names it.")
    line = serializers.IntegerField()
    column = serializers.IntegerField(allow_null=True)
    textLine = serializers.IntegerField(help_text="The line of the text that names it.")
    version = serializers.CharField(
        allow_null=True, help_text="The release a registry path names, e.g. 0.19.1."
    )


class MatchSerializer(serializers.Serializer):
    id = serializers.CharField()
    message = serializers.CharField()
    repo = serializers.CharField()
    url = serializers.URLField(help_text="The entry's page.")
    errorType = serializers.CharField()
    filePath = serializers.CharField(allow_null=True)
    lineNumber = serializers.IntegerField(allow_null=True)
    line = serializers.IntegerField(help_text="The line of the text where the message is.")
    span = serializers.ListField(
        child=serializers.IntegerField(), help_text="Start and end of the match in that line."
    )
    matched = serializers.CharField(help_text="The matched text (at most 500 characters).")
    location = LocationSerializer(
        allow_null=True, help_text="The source location the text gives for this message."
    )
    fits = serializers.ChoiceField(
        choices=["line", "file", ""],
        help_text='"line": the location is the entry\'s file and line (in some release); '
        '"file": its file only; "": neither, or the text names no location.',
    )
    releases = serializers.ListField(
        child=serializers.CharField(),
        help_text="The entry's releases whose line the location is, from its appliesTo rows.",
    )


class LookupResponseSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    truncated = serializers.BooleanField(
        help_text="Whether the lookup stopped at its bound of matches or passes."
    )
    matches = MatchSerializer(many=True)


class LookupAPI(APIView):
    """Find the published entries whose messages a pasted text carries."""

    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="lookup",
        request=LookupRequestSerializer,
        responses={
            200: LookupResponseSerializer,
            400: OpenApiResponse(ErrorBodySerializer, "No text, or an empty one."),
            413: OpenApiResponse(ErrorBodySerializer, "A text over 1 MiB."),
            429: OpenApiResponse(ErrorBodySerializer, "Too many lookups from this client."),
        },
    )
    def post(self, request):
        try:
            charge_request(request, "lookup")
        except RateLimited as limited:
            return _refusal(str(limited), 429, {"Retry-After": str(limited.retry_after)})
        try:
            check_body_size(request.META.get("CONTENT_LENGTH"))
            given = LookupRequestSerializer(data=request.data)
            given.is_valid(raise_exception=True)
            found = look_up(given.validated_data["text"])
        except TextError as refused:
            if refused.status == 400:
                raise exceptions.ValidationError({"text": [str(refused)]}) from refused
            return _refusal(str(refused), refused.status)
        return Response(lookup_answer(found, request.build_absolute_uri))


def _refusal(detail: str, code: int, headers: dict | None = None) -> Response:
    return Response({"detail": detail, "errors": {}}, status=code, headers=headers)
