"""A lookup as JSON: the DRF serializers that write the API's answer from the lookup's
objects, which the `lookup` command prints too and the OpenAPI document describes."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from errorkb.verification.state.per_release import ReleaseState

from .lookups import Lookup
from .matches.fits import Match
from .story.findings import ROLES, Finding
from .story.places import DEPENDENCY, RUST, UPSTREAM, USER
from .story.upstream_lines import UpstreamLine

MATCHED_CHARS = 500
MESSAGE_CHARS = 2000


class ClippedCharField(serializers.CharField):
    """A text cut to its first `max_length` characters: a pasted line can be any length."""

    def to_representation(self, value) -> str:
        return super().to_representation(value)[: self.max_length]


class PageURLField(serializers.URLField):
    """An entry's page: absolute when the answer goes to a request (the API), the path
    alone when it has none (the command); "" stays "" (no address: names.page_address)."""

    def to_representation(self, value) -> str:
        request = self.context.get("request")
        if request is None or not value:
            return value
        return request.build_absolute_uri(value)


class BlankAsNullChoiceField(serializers.ChoiceField):
    """A choice, or null where the lookup holds "" for nothing said."""

    def to_representation(self, value) -> str | None:
        return super().to_representation(value) or None


class LocationSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="The path as the text names it.")
    line = serializers.IntegerField()
    column = serializers.IntegerField(allow_null=True)
    textLine = serializers.IntegerField(
        source="text_line", help_text="The line of the text that names it."
    )
    version = serializers.CharField(
        allow_null=True, help_text="The release a registry path names, e.g. 0.19.1."
    )


class MatchSerializer(serializers.Serializer):
    id = serializers.CharField(source="entry.id")
    message = serializers.CharField(source="entry.message")
    repo = serializers.CharField(source="entry.repo")
    url = PageURLField(
        help_text="The entry's page; with ?release= when the text tells the release."
    )
    release = serializers.CharField(
        allow_null=True,
        help_text="The release the text was read at for it: its panic's (a registry path), "
        "else the one every path and Compiling line of the log names; null when it says none.",
    )
    # Null without a state: DRF answers null for a nullable field whose source is missing.
    state = serializers.ChoiceField(
        source="state.state",
        choices=ReleaseState.choices,
        allow_null=True,
        help_text="The entry's state at that release (entry-wide without one).",
    )
    stateLabel = serializers.SerializerMethodField(
        help_text='The state in words: "raised in 0.20.0-pre.3 with a hand-made '
        'LearnerComponentTypes; not yet reproduced".',
    )
    errorType = serializers.CharField(source="entry.error_type")
    filePath = serializers.CharField(source="entry.file_path", allow_null=True)
    lineNumber = serializers.IntegerField(source="entry.line_number", allow_null=True)
    line = serializers.IntegerField(
        source="text_line", help_text="The line of the text where the message is."
    )
    span = serializers.SerializerMethodField(help_text="Start and end of the match in that line.")
    matched = ClippedCharField(
        max_length=MATCHED_CHARS, help_text="The matched text (at most 500 characters)."
    )
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

    def get_stateLabel(self, match: Match) -> str:
        return match.state.label if match.state else ""

    def get_span(self, match: Match) -> list[int]:
        return [match.start, match.end]


class UpstreamLineSerializer(serializers.Serializer):
    repo = serializers.CharField(source="file.repo")
    filePath = serializers.CharField(
        source="file.path", help_text="The repository's path of the file."
    )
    lineNumber = serializers.IntegerField(source="line")
    release = serializers.CharField(
        allow_null=True, help_text="The release it is read at: the text's, else the newest."
    )
    commit = serializers.CharField(allow_null=True, help_text="That release's commit.")
    message = serializers.CharField(
        allow_null=True,
        help_text="The error site the release scans found at this line, as written; null "
        "when the file is known but the line holds no site.",
    )
    saysIt = serializers.BooleanField(
        source="says_it", help_text="Whether that site's message is the text's."
    )
    releases = serializers.ListField(
        child=serializers.CharField(), help_text="The releases with this site at this line."
    )
    url = serializers.URLField(
        allow_null=True,
        help_text="The line in the repository, at that commit; null when no scan or row says "
        "which commit (a file only an entry's rows name).",
    )
    reviewed = serializers.SerializerMethodField(
        help_text="Always false: a site the scans found, with no reviewed entry yet."
    )

    def get_reviewed(self, upstream: UpstreamLine) -> bool:
        return False


# Read from the finding, not its place: the finding holds the frame it was called from.
class PlaceSerializer(serializers.Serializer):
    text = serializers.CharField(
        source="place.describe",
        help_text='Said for a reader: "burn\'s code (burn-train 0.19.1, from crates.io)".',
    )
    repo = serializers.CharField(
        source="place.repo", allow_null=True, help_text="owner/name, for upstream code."
    )
    crate = serializers.CharField(
        source="place.crate", allow_null=True, help_text="The crate, when the path says."
    )
    version = serializers.CharField(
        source="place.version",
        allow_null=True,
        help_text="The crate's release, from a registry path.",
    )
    installed = BlankAsNullChoiceField(
        source="place.installed",
        choices=["registry", "git", "checkout"],
        allow_null=True,
        help_text="How the crate is installed, when the path says.",
    )
    calledFrom = LocationSerializer(
        source="called_from",
        allow_null=True,
        help_text="For another crate's code or Rust's library: the first frame of the "
        "backtrace in the upstream project's code, whose line `upstream` names.",
    )

    def get_attribute(self, finding: Finding) -> Finding | None:
        # Null when the text names no location: there is no place to say.
        return finding if finding.place else None


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
    message = ClippedCharField(
        max_length=MESSAGE_CHARS,
        allow_blank=True,
        help_text="The message as printed (at most 2,000 characters).",
    )
    line = serializers.IntegerField(
        source="text_line", help_text="The line of the text where it starts."
    )
    location = LocationSerializer(allow_null=True, help_text="Where it says it was raised.")
    where = serializers.ChoiceField(
        choices=[UPSTREAM, DEPENDENCY, USER, RUST, ""],
        help_text='"upstream": the code of the project the entries explain (burn), installed '
        'from a registry, a git dependency or a checkout; "dependency": another crate\'s; '
        '"user": the user\'s own code (their unwrap(), say); "rust": Rust\'s standard '
        'library; "": the text names no location.',
    )
    place = PlaceSerializer(
        source="*",
        allow_null=True,
        help_text="Whose code the location is, in words and in parts.",
    )
    release = serializers.CharField(allow_null=True, help_text="The release, when the text says.")
    releaseFrom = serializers.ChoiceField(
        source="release_from",
        choices=["path", "log", ""],
        help_text='"path": a registry path of this panic or its backtrace; "log": the one '
        "release every registry path and Compiling line of the text names.",
    )
    entry = MatchSerializer(
        source="match", allow_null=True, help_text="The entry that explains it."
    )
    also = MatchSerializer(many=True, help_text="Other entries found in it.")
    upstream = UpstreamLineSerializer(
        allow_null=True,
        help_text="When no entry explains it: the upstream line its location names (for "
        "another crate's code, the line of the project that called it), no reviewed entry "
        "yet.",
    )


# Its context: `request`, to give the entries' pages as absolute URLs (the command has
# none: it prints their paths); `address`, the kept lookup's page, if one was kept.
class LookupResponseSerializer(serializers.Serializer):
    count = serializers.SerializerMethodField()
    truncated = serializers.BooleanField(
        help_text="Whether the lookup stopped at its bound of matches or passes."
    )
    matches = MatchSerializer(many=True)
    story = FindingSerializer(
        many=True, help_text="The text's panics and errors in order, the likely cause first."
    )
    storyTruncated = serializers.BooleanField(
        source="story_truncated",
        help_text="Whether the text holds more panics than a lookup reads (50).",
    )
    address = serializers.SerializerMethodField(
        help_text="With keep: the page that shows this lookup again, to share; else null.",
    )

    def get_count(self, found: Lookup) -> int:
        return len(found.matches)

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_address(self, found: Lookup) -> str | None:
        return self.context.get("address")
