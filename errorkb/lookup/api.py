"""POST /api/lookup: a pasted text in, the matching entries and the text's story out, as JSON."""

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from errorkb.http.api import ErrorBodySerializer, KnownQueryParametersMixin
from errorkb.http.throttles import LookupThrottle, ThrottlingMixin
from errorkb.verification.release_states import ReleaseState

from .answers import lookup_answer
from .findings import ROLES
from .kept import keep_lookup
from .lookups import NOT_BLANK, EmptyText, TextError, check_body_size, look_up
from .places import DEPENDENCY, RUST, UPSTREAM, USER


class StrictCharField(serializers.CharField):
    """A string and nothing else: DRF's CharField would take 12 for "12"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false and nothing else: DRF's BooleanField would take 0, "yes" or "on"."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


EMPTY = str(EmptyText())


class PastedTextField(StrictCharField):
    """A pasted text, NUL characters included: a terminal's log may hold them, and the
    lookup stores nothing (DRF refuses them by default, which the document cannot say)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [
            validator
            for validator in self.validators
            if not isinstance(validator, ProhibitNullCharactersValidator)
        ]


class LookupRequestSerializer(serializers.Serializer):
    text = PastedTextField(
        trim_whitespace=False,
        # Blank or only whitespace: the document says so with a pattern.
        error_messages={"blank": EMPTY},
        validators=[RegexValidator(NOT_BLANK, message=EMPTY)],
        help_text="The pasted text: a panic, a traceback, a log (at most 1 MiB in UTF-8).",
    )
    keep = StrictBooleanField(
        default=False,
        help_text="Keep the text and answer an address to share (`address`) that shows this "
        "lookup again. Without it nothing of the text is stored.",
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
    url = serializers.URLField(
        help_text="The entry's page; with ?release= when the text tells the release."
    )
    release = serializers.CharField(
        allow_null=True,
        help_text="The release the text was read at for it: its panic's (a registry path), "
        "else the one every path and Compiling line of the log names; null when it says none.",
    )
    state = serializers.ChoiceField(
        choices=ReleaseState.choices,
        allow_null=True,
        help_text="The entry's state at that release (entry-wide without one).",
    )
    stateLabel = serializers.CharField(
        allow_blank=True,
        help_text='The state in words: "raised in 0.20.0-pre.3 with a hand-made '
        'LearnerComponentTypes; not yet reproduced".',
    )
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
    pinned = serializers.BooleanField(
        help_text="Whether the location is the entry's own pin (its filePath and lineNumber)."
    )
    by = serializers.ChoiceField(
        choices=["message", "location"],
        help_text='"message": the entry\'s pattern matched the text; "location": the text, cut '
        "off, names only the entry's file and line and the start of its message.",
    )
    releases = serializers.ListField(
        child=serializers.CharField(),
        help_text="The entry's releases whose line the location is, from its appliesTo and "
        "raisedIn rows; the one release a registry path names (burn-train-0.19.1/), when it "
        "is among them.",
    )


class UpstreamLineSerializer(serializers.Serializer):
    repo = serializers.CharField()
    filePath = serializers.CharField(help_text="The repository's path of the file.")
    lineNumber = serializers.IntegerField()
    release = serializers.CharField(
        allow_null=True, help_text="The release it is read at: the text's, else the newest."
    )
    commit = serializers.CharField(allow_null=True, help_text="That release's commit.")
    message = serializers.CharField(
        allow_null=True,
        help_text="The error site the release scans found at this line, as written; null "
        "when the file is known but the line holds no site.",
    )
    saysIt = serializers.BooleanField(help_text="Whether that site's message is the text's.")
    releases = serializers.ListField(
        child=serializers.CharField(), help_text="The releases with this site at this line."
    )
    url = serializers.URLField(
        allow_null=True,
        help_text="The line in the repository, at that commit; null when no scan or row says "
        "which commit (a file only an entry's rows name).",
    )
    reviewed = serializers.BooleanField(
        help_text="Always false: a site the scans found, with no reviewed entry yet."
    )


class PlaceSerializer(serializers.Serializer):
    text = serializers.CharField(
        help_text='Said for a reader: "burn\'s code (burn-train 0.19.1, from crates.io)".'
    )
    repo = serializers.CharField(allow_null=True, help_text="owner/name, for upstream code.")
    crate = serializers.CharField(allow_null=True, help_text="The crate, when the path says.")
    version = serializers.CharField(
        allow_null=True, help_text="The crate's release, from a registry path."
    )
    installed = serializers.ChoiceField(
        choices=["registry", "git", "checkout"],
        allow_null=True,
        help_text="How the crate is installed, when the path says.",
    )
    calledFrom = LocationSerializer(
        allow_null=True,
        help_text="For another crate's code or Rust's library: the first frame of the "
        "backtrace in the upstream project's code, whose line `upstream` names.",
    )


class FindingSerializer(serializers.Serializer):
    order = serializers.IntegerField(help_text="1-based, in the order the text prints them.")
    role = serializers.ChoiceField(
        choices=list(ROLES),
        help_text='"cause": the first panic or error, the likely cause; "consequence": it '
        "follows from an earlier one (a dead worker thread, a panic while unwinding, a "
        "thread that already panicked), which is not in the text when it comes first; "
        '"later": another failure after the cause; "context": an entry found outside every '
        "panic (the panic hook's banner, a log line).",
    )
    kind = serializers.ChoiceField(
        choices=["panic", "logged", "error", "message"],
        help_text='"panic": Rust\'s panic message; "logged": burn\'s `PANIC => ` log line; '
        '"error": main() returning `Error: ...`; "message": an entry found outside them.',
    )
    thread = serializers.CharField(allow_null=True, help_text="The thread that panicked.")
    message = serializers.CharField(
        allow_blank=True, help_text="The message as printed (at most 2,000 characters)."
    )
    line = serializers.IntegerField(help_text="The line of the text where it starts.")
    location = LocationSerializer(allow_null=True, help_text="Where it says it was raised.")
    where = serializers.ChoiceField(
        choices=[UPSTREAM, DEPENDENCY, USER, RUST, ""],
        help_text='"upstream": the code of the project the entries explain (burn), installed '
        'from a registry, a git dependency or a checkout; "dependency": another crate\'s; '
        '"user": the user\'s own code (their unwrap(), say); "rust": Rust\'s standard '
        'library; "": the text names no location.',
    )
    place = PlaceSerializer(
        allow_null=True, help_text="Whose code the location is, in words and in parts."
    )
    release = serializers.CharField(allow_null=True, help_text="The release, when the text says.")
    releaseFrom = serializers.ChoiceField(
        choices=["path", "log", ""],
        help_text='"path": a registry path of this panic or its backtrace; "log": the one '
        "release every registry path and Compiling line of the text names.",
    )
    entry = MatchSerializer(allow_null=True, help_text="The entry that explains it.")
    also = MatchSerializer(many=True, help_text="Other entries found in it.")
    upstream = UpstreamLineSerializer(
        allow_null=True,
        help_text="When no entry explains it: the upstream line its location names (for "
        "another crate's code, the line of the project that called it), no reviewed entry "
        "yet.",
    )


class LookupResponseSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    truncated = serializers.BooleanField(
        help_text="Whether the lookup stopped at its bound of matches or passes."
    )
    matches = MatchSerializer(many=True)
    story = FindingSerializer(
        many=True, help_text="The text's panics and errors in order, the likely cause first."
    )
    storyTruncated = serializers.BooleanField(
        help_text="Whether the text holds more panics than a lookup reads (50)."
    )
    address = serializers.URLField(
        allow_null=True,
        help_text="With keep: the page that shows this lookup again, to share; else null.",
    )


class LookupAPI(ThrottlingMixin, KnownQueryParametersMixin, APIView):
    """Find the published entries whose messages a pasted text carries, and read the text
    as a story: its panics and errors in order, the first the likely cause."""

    throttle_classes = [LookupThrottle]  # before the body is read

    @extend_schema(
        operation_id="lookup",
        request=LookupRequestSerializer,
        responses={
            200: LookupResponseSerializer,
            400: OpenApiResponse(ErrorBodySerializer, "No text, an empty one, or any parameter."),
            413: OpenApiResponse(ErrorBodySerializer, "A text over 1 MiB."),
            429: OpenApiResponse(ErrorBodySerializer, "Too many lookups from this client."),
        },
    )
    def post(self, request):
        try:
            check_body_size(request.META.get("CONTENT_LENGTH"))
            given = LookupRequestSerializer(data=request.data)
            given.is_valid(raise_exception=True)
            text = given.validated_data["text"]
            found = look_up(text)
        except TextError as refused:
            if refused.status == 400:
                raise exceptions.ValidationError({"text": [str(refused)]}) from refused
            return _refusal(str(refused), refused.status)
        address = None
        if given.validated_data["keep"]:
            address = request.build_absolute_uri(keep_lookup(text).get_absolute_url())
        return Response(lookup_answer(found, request.build_absolute_uri, address=address))


def _refusal(detail: str, code: int) -> Response:
    return Response({"detail": detail, "errors": {}}, status=code)
