"""How many requests of each limited kind each anonymous client made in the current window."""

from django.db import models


class Allowance(models.Model):
    """One client's count of requests of one kind (a limit's scope) in one fixed window."""

    client = models.CharField(max_length=64)
    scope = models.CharField(max_length=16)
    started = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["client", "scope", "started"], name="one_http_allowance_per_window"
            ),
        ]
        indexes = [models.Index(fields=["started"])]

    def __str__(self) -> str:
        return f"{self.scope} {self.client[:8]} {self.started:%H:%M}: {self.count}"
