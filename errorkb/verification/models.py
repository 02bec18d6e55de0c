"""Reproduction scenarios (mirrored from the trainer's registry), the runs that prove entries,
and each entry's stored verification state."""

from datetime import timedelta

from django.db import models
from django.db.models import Count
from django.db.models.functions import TruncDate

from errorkb.kb.models import ErrorEntry
from trainer import outcome

# What a verification is, said once for the entry page, the API and the docs.
VERIFIED_MEANS = (
    "Verified means reproduced by errorkb's reference trainer, not by a run of burn itself. "
    "The trainer is a PyTorch mirror of burn's checkpointing (its checkpointers, strategies, "
    "learner and record files, written in burn's own file formats) that prints burn's texts, "
    "each the string literal of a cited line of burn's source (path:line@commit). A run "
    "triggers the failure with a real fault (a full volume, a read-only file, a killed worker, "
    "a damaged file) on the device it names and records what the mirror printed. Unreachable "
    "means such a run, with a set-up burn's public API allows, printed something else, and "
    "burn's source at the cited lines shows why. A release or set-up no scenario mirrors says "
    "so: not yet reproduced."
)


class State(models.TextChoices):
    VERIFIED = "verified", "verified"
    UNREACHABLE = "unreachable", "unreachable: burn never prints it"
    DRIFTED = "drifted", "drifted"
    NOT_REPRODUCING = "not_reproducing", "not reproducing"
    FLAKY = "flaky", "flaky"
    UNSUPPORTED = "unsupported", "unsupported here"
    UNVERIFIED = "unverified", "unverified"


class ScenarioQuerySet(models.QuerySet):
    def active(self):
        return self.filter(active=True)


class Scenario(models.Model):
    """One scenario of trainer.scenarios, kept in sync by `manage.py sync_scenarios`.

    A scenario proves the entries whose message it prints (`proves`) and proves the
    absence of those its set-up never prints (`disproves`): burn does not say them there.
    """

    name = models.SlugField(primary_key=True, max_length=100)
    # For display: the first of proves, else the first of disproves.
    message = models.TextField(blank=True, help_text="The documented message it is about.")
    description = models.TextField(blank=True)
    release = models.CharField(max_length=20, blank=True, help_text="main, v0.21.0, v0.19.1")
    setup = models.CharField(
        max_length=30, blank=True, help_text="supervised, rl, hand-built, learner-builder"
    )
    setup_summary = models.TextField(blank=True, help_text="The set-up in a sentence.")
    fault = models.CharField(max_length=50)
    epoch = models.PositiveSmallIntegerField(null=True)
    # The texts a reproduction must print, in order, each a regex matched in full.
    expected = models.JSONField(default=list)
    expected_pattern = models.TextField(blank=True)  # for display: the first of expected
    expected_errno = models.IntegerField(null=True)
    proves = models.JSONField(default=list, help_text="Messages these texts show.")
    disproves = models.JSONField(default=list, help_text="Messages this set-up never prints.")
    citations = models.JSONField(default=list, help_text='burn sources, as "path:line@commit".')
    # The digest of the registry's item (fingerprints.digest): a run's input, so a change to
    # the scenario's definition runs it again.
    definition = models.CharField(max_length=16, blank=True)
    fix = models.TextField(blank=True)
    # False once the trainer's registry no longer has it: kept for the history of its runs.
    active = models.BooleanField(default=True)
    entries = models.ManyToManyField(ErrorEntry, related_name="scenarios", blank=True)
    synced_at = models.DateTimeField()

    objects = ScenarioQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def proves_absence_of(self, entry: ErrorEntry) -> bool:
        """Whether this scenario shows that burn never prints the entry's message."""
        return entry.error_message in self.disproves

    @property
    def setup_label(self) -> str:
        """The set-up and release, as a reader would name them."""
        setup = self.setup_summary or self.setup or "its set-up"
        return f"{setup} ({self.release})" if self.release else setup


class RunQuerySet(models.QuerySet):
    def finished(self):
        return self.exclude(status=VerificationRun.Status.RUNNING)

    def for_entry(self, entry: ErrorEntry):
        return self.filter(entry=entry)

    def newest_first(self):
        return self.order_by("-started_at", "-id")

    def per_day_and_status(self):
        """(day, status, runs) rows, oldest day first: one GROUP BY, whatever the database."""
        # TruncDate in the site's time zone (UTC): SQLite and PostgreSQL agree on the day.
        days = self.annotate(day=TruncDate("started_at")).order_by()
        return days.values("day", "status").annotate(runs=Count("*")).order_by("day", "status")


class VerificationRun(models.Model):
    """One reproduction of one scenario for one entry, on one device, by one Celery task."""

    # The trainer's vocabulary; a run is "running" until its outcome is recorded.
    Variant = models.TextChoices("Variant", [(v.name, v.value) for v in outcome.Variant])
    Status = models.TextChoices(
        "Status", [("RUNNING", "running"), *((s.name, s.value) for s in outcome.Status)]
    )

    # The Celery task id: a redelivered task finds its run instead of recording another.
    task_id = models.CharField(max_length=255, unique=True)
    entry = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="runs")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    device = models.CharField(max_length=16)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    message = models.TextField(null=True, blank=True)
    # Every panic or log text the run printed, in order; message is the one about the entry.
    texts = models.JSONField(default=list, blank=True)
    errno = models.IntegerField(null=True, blank=True)
    # The signal that ended the run: SIGXFSZ past `ulimit -f` (burn prints nothing then), or
    # SIGABRT, Rust's abort after a panic in a destructor during cleanup (after burn's panics).
    signal = models.CharField(max_length=16, blank=True)
    pattern_matched = models.BooleanField(null=True)
    reason = models.TextField(blank=True)
    trainer_version = models.CharField(max_length=40, blank=True)
    torch_version = models.CharField(max_length=60, blank=True)
    python_version = models.CharField(max_length=40, blank=True)
    host = models.CharField(max_length=255, blank=True)
    worker_pid = models.IntegerField(null=True, blank=True)  # the process running it, on host
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    log_tail = models.TextField(blank=True)
    # What decided its outcome (fingerprints.run_inputs): the scenario's definition, the
    # entry's texts, variant, device, the trainer's code and torch, as it ran on them.
    inputs = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["entry", "scenario", "variant", "device", "-started_at"]),
            # The verification page's chart counts the last days' runs by status: from the
            # index alone, without reading the runs.
            models.Index(fields=["started_at", "status"], name="verification_run_day_status"),
        ]

    def __str__(self) -> str:
        return f"{self.scenario_id} ({self.variant}, {self.device}): {self.status}"

    @property
    def finished(self) -> bool:
        return self.status != self.Status.RUNNING

    @property
    def ended_by(self) -> str:
        """How the signal that ended the run reads, or "" when none did."""
        if not self.signal:
            return ""
        if self.signal == "SIGABRT" and self.texts:
            return "aborted (SIGABRT)"  # Rust's abort, after the panics it printed
        return f"killed by {self.signal}" + ("" if self.texts else " with nothing printed")


# Between the clocks of the host that enqueues and the workers that write the runs.
CLOCK_SKEW = timedelta(minutes=10)


class Sweep(models.Model):
    """One fan-out of runs (the nightly sweep, a bulk re-verify, `verify`): its progress.

    Its runs' task ids all start with `task_prefix`, so its progress is one indexed
    count of their finished runs, however many it sent.
    """

    started_at = models.DateTimeField()
    source = models.CharField(max_length=40, help_text="sweep, admin, verify")
    entries = models.PositiveIntegerField(default=0, help_text="entries with runs")
    runs = models.PositiveIntegerField(default=0, help_text="runs enqueued")
    # Why its runs were planned ({reason: runs}, fingerprints' reasons), a few entries for
    # each reason, and the runs left out because their inputs had not changed.
    reasons = models.JSONField(default=dict, blank=True)
    examples = models.JSONField(default=dict, blank=True)
    confirmed = models.PositiveIntegerField(default=0, help_text="runs not needed")
    task_prefix = models.CharField(max_length=40, unique=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.source} at {self.started_at:%Y-%m-%d %H:%M}: {self.runs} runs"

    def task_id(self, number: int) -> str:
        return f"{self.task_prefix}{number}"

    @property
    def why(self) -> list[tuple[str, int, list[str]]]:
        """(reason, runs, a few of the entries) for each reason its runs were planned.

        What no fan-out writes (a row written by hand, of another shape) is left out.
        """
        reasons = self.reasons if isinstance(self.reasons, dict) else {}
        examples = self.examples if isinstance(self.examples, dict) else {}
        return [
            (str(reason), runs, [str(entry) for entry in examples.get(reason, [])][:5])
            for reason, runs in reasons.items()
            if isinstance(runs, int) and isinstance(examples.get(reason, []), list)
        ]

    def task_runs(self):
        # Its runs were written after it started: the updated_at index narrows the search.
        since = self.started_at - CLOCK_SKEW
        return VerificationRun.objects.filter(
            updated_at__gte=since, task_id__startswith=self.task_prefix
        )

    @property
    def finished_runs(self) -> int:
        return self.task_runs().finished().count()


class EntryState(models.Model):
    """An entry's verification state as last derived from its runs (state.stored stores it).

    Written in the transaction that finishes a run or changes the entry's scenario
    links, so lists and filters read it in SQL. An entry without a row is unverified.
    """

    entry = models.OneToOneField(
        ErrorEntry, on_delete=models.CASCADE, primary_key=True, related_name="verification_state"
    )
    state = models.CharField(max_length=20, choices=State.choices)  # indexed in Meta
    changed_at = models.DateTimeField(db_index=True, help_text="When the state last changed.")
    computed_at = models.DateTimeField(help_text="When it was last derived from the runs.")

    class Meta:
        # The admin's state filter: an entry's ids by state (and, unverified, the ids of the
        # other states) read from the index alone.
        indexes = [models.Index(fields=["state", "entry"], name="entrystate_state_entry")]

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.state}"


class ConfirmationQuerySet(models.QuerySet):
    def oldest_first(self):
        return self.order_by("ran_at", "pk")


class Confirmation(models.Model):
    """The latest finished run of one entry's scenario, variant and device, and when it ran.

    Written with the run (runs._finish): the nightly sweep reads a chunk of entries' rows
    at once to see whose inputs changed, and the oldest to re-check, without searching
    the runs. Deleting the run deletes the row: the next sweep runs it again.
    """

    entry = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=16, choices=VerificationRun.Variant.choices)
    device = models.CharField(max_length=16)
    run = models.OneToOneField(VerificationRun, on_delete=models.CASCADE, related_name="+")
    ran_at = models.DateTimeField(db_index=True, help_text="When the run started.")
    # The run's fingerprint, so that a sweep compares one short text a run and reads the
    # inputs only of those that differ; "" (matching none) when the run recorded no inputs
    # or ended in a harness error: either way it must run again.
    fingerprint = models.CharField(max_length=16, blank=True)

    objects = ConfirmationQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "scenario", "variant", "device"], name="one_confirmation_a_run"
            )
        ]

    def __str__(self) -> str:
        return f"{self.entry_id} {self.scenario_id} ({self.variant}, {self.device})"


class WorkerEnvironment(models.Model):
    """What the workers of a device run scenarios with, as the latest of them announced on
    start (fingerprints.announce): the planner compares runs' inputs with it."""

    device = models.CharField(max_length=16, primary_key=True)
    trainer = models.CharField(max_length=16, help_text="The digest of the trainer's code.")
    torch = models.CharField(max_length=60, blank=True, help_text="Version and build.")
    host = models.CharField(max_length=255, blank=True)
    announced_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.device}: trainer {self.trainer}, torch {self.torch or 'none'}"
