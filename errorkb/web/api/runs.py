"""Verification in the JSON API: the `verification` object and an entry's runs."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers

from errorkb.http.api import (
    CONDITIONAL_GET_PARAMETERS,
    ENTRY_ID,
    KnownQueryParametersMixin,
    conditional_get_responses,
    entry_or_404,
)
from errorkb.kb.models import ErrorEntry
from errorkb.verification.fingerprints import fingerprint
from errorkb.verification.models import VerificationRun
from errorkb.verification.state.judging import ScenarioResult, State


class ScenarioResultSerializer(serializers.Serializer):
    """One scenario on one device: its state and latest outcome."""

    scenario = serializers.CharField()
    device = serializers.CharField()
    state = serializers.CharField()
    status = serializers.SerializerMethodField()
    patternMatched = serializers.SerializerMethodField()
    message = serializers.SerializerMethodField()
    finishedAt = serializers.SerializerMethodField()
    fixVerified = serializers.BooleanField(source="fix_verified")
    provesAbsence = serializers.BooleanField(
        source="absence", help_text="It shows that burn never prints the message."
    )
    setup = serializers.CharField(help_text="The scenario's set-up and burn release.")

    def get_status(self, result: ScenarioResult) -> str | None:
        return result.failure.status if result.failure else None

    def get_patternMatched(self, result: ScenarioResult) -> bool | None:
        return result.pattern_matched

    def get_message(self, result: ScenarioResult) -> str | None:
        return result.message

    def get_finishedAt(self, result: ScenarioResult) -> str | None:
        if result.failure is None:
            return None
        return serializers.DateTimeField().to_representation(result.failure.finished_at)


class SeenInsteadSerializer(serializers.Serializer):
    """What a reader sees where an unreachable entry's message would be."""

    text = serializers.CharField()
    setup = serializers.CharField(help_text="The set-up and burn release it was seen with.")


class VerificationSerializer(serializers.Serializer):
    """Whether the entry is proven today: its stored state, and each scenario's latest outcome."""

    state = serializers.ChoiceField(choices=State.choices)
    lastVerifiedAt = serializers.DateTimeField(source="last_verified_at", allow_null=True)
    devices = serializers.ListField(child=serializers.CharField())
    observedMessage = serializers.CharField(source="observed_message", allow_null=True)
    fixVerified = serializers.BooleanField(source="fix_verified")
    scenarios = ScenarioResultSerializer(many=True)
    seenInstead = SeenInsteadSerializer(
        source="seen_instead",
        allow_null=True,
        help_text="Only when unreachable: burn does not print the message; this is shown.",
    )


class RunInputsSerializer(serializers.Serializer):
    """What decided a run's outcome, as it ran; empty for a run recorded before runs kept it."""

    scenario = serializers.CharField(required=False, help_text="Its definition's digest.")
    entry = serializers.CharField(required=False, help_text="The entry's message and pattern's.")
    variant = serializers.CharField(required=False)
    device = serializers.CharField(required=False)
    trainer = serializers.CharField(required=False, help_text="The trainer's code's digest.")
    torch = serializers.CharField(required=False, help_text="Version and build; empty: none.")


class RunSerializer(serializers.ModelSerializer):
    """One verification run, as recorded."""

    taskId = serializers.CharField(source="task_id")
    scenario = serializers.CharField(source="scenario_id")
    patternMatched = serializers.BooleanField(source="pattern_matched", allow_null=True)
    trainerVersion = serializers.CharField(source="trainer_version")
    torchVersion = serializers.CharField(source="torch_version")
    pythonVersion = serializers.CharField(source="python_version")
    startedAt = serializers.DateTimeField(source="started_at")
    finishedAt = serializers.DateTimeField(source="finished_at", allow_null=True)
    durationS = serializers.FloatField(source="duration_s", allow_null=True)
    logTail = serializers.CharField(source="log_tail")
    inputs = RunInputsSerializer()
    fingerprint = serializers.SerializerMethodField(
        help_text="The digest of its inputs; the same inputs, the same fingerprint. Empty "
        "when it recorded none."
    )

    class Meta:
        model = VerificationRun
        fields = [
            "taskId", "scenario", "variant", "device", "status", "message", "texts", "errno",
            "signal", "patternMatched", "reason", "trainerVersion", "torchVersion", "pythonVersion",
            "host", "attempts", "startedAt", "finishedAt", "durationS", "logTail", "inputs",
            "fingerprint",
        ]  # fmt: skip

    def get_fingerprint(self, run: VerificationRun) -> str:
        return fingerprint(run.inputs) if run.inputs else ""


@extend_schema(
    parameters=[ENTRY_ID, *CONDITIONAL_GET_PARAMETERS],
    responses=conditional_get_responses(
        RunSerializer(many=True),
        errors={
            400: "An unknown parameter or a bad page number: named in `errors`.",
            404: "No published entry has that id, or no page has that number.",
        },
    ),
)
class EntryRuns(KnownQueryParametersMixin, generics.ListAPIView):
    """A published entry's verification runs, newest first."""

    serializer_class = RunSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the OpenAPI generator, without a pk
            return VerificationRun.objects.none()
        entry = entry_or_404(ErrorEntry.objects.published(), self.kwargs["pk"])
        return VerificationRun.objects.for_entry(entry).newest_first()
