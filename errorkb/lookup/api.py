"""POST /api/lookup: a pasted text in, the matching entries and the text's story out, as JSON."""

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from errorkb.http.api import ErrorBodySerializer, KnownQueryParametersMixin, error_body
from errorkb.http.throttles import LookupThrottle, ThrottlingMixin

from .answers import LookupResponseSerializer
from .kept import keep_lookup
from .lookups import NOT_BLANK, EmptyText, TextError, check_body_size, look_up


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
            return Response(error_body(str(refused)), status=refused.status)
        address = None
        if given.validated_data["keep"]:
            address = request.build_absolute_uri(keep_lookup(text).get_absolute_url())
        answer = LookupResponseSerializer(found, context={"request": request, "address": address})
        return Response(answer.data)
