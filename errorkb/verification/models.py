"""Reproduction scenarios (mirrored from the trainer's registry) and the runs that prove entries."""

from django.db import models

from errorkb.kb.models import ErrorEntry


class ScenarioQuerySet(models.QuerySet):
    def active(self):
        return self.filter(active=True)


class Scenario(models.Model):
    """One scenario of trainer.scenarios, kept in sync by `manage.py sync_scenarios`."""

    name = models.SlugField(primary_key=True, max_length=100)
    message = models.TextField(help_text="The documented message this scenario proves.")
    description = models.TextField(blank=True)
    setup = models.JSONField(default=dict)
    fault = models.CharField(max_length=50)
    epoch = models.PositiveSmallIntegerField(null=True)
    expected_pattern = models.TextField()
    expected_errno = models.IntegerField(null=True)
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


class RunQuerySet(models.QuerySet):
    def finished(self):
        return self.exclude(status=VerificationRun.Status.RUNNING)

    def for_entry(self, entry: ErrorEntry):
        return self.filter(entry=entry)

    def newest_first(self):
        return self.order_by("-started_at", "-id")


class VerificationRun(models.Model):
    """One reproduction of one scenario for one entry, on one device, by one Celery task."""

    class Variant(models.TextChoices):
        FAILURE = "failure"
        FIXED = "fixed"

    class Status(models.TextChoices):
        RUNNING = "running"
        REPRODUCED = "reproduced"
        NOT_REPRODUCED = "not_reproduced"
        FIXED = "fixed"
        UNSUPPORTED = "unsupported"
        ERROR = "error"

    # The Celery task id: a redelivered task finds its run instead of recording another.
    task_id = models.CharField(max_length=255, unique=True)
    entry = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="runs")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    device = models.CharField(max_length=16)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    message = models.TextField(null=True, blank=True)
    errno = models.IntegerField(null=True, blank=True)
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
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["entry", "scenario", "variant", "device", "-started_at"])]

    def __str__(self) -> str:
        return f"{self.scenario_id} ({self.variant}, {self.device}): {self.status}"

    @property
    def finished(self) -> bool:
        return self.status != self.Status.RUNNING

    @property
    def proved(self) -> bool:
        """Whether this run shows what it was meant to show."""
        if self.variant == self.Variant.FIXED:
            return self.status == self.Status.FIXED
        return self.status == self.Status.REPRODUCED and bool(self.pattern_matched)
