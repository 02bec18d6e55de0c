"""The verification page: the sweeps, the entries by state and the runs per day, for people."""

from django.conf import settings
from django.shortcuts import render

from errorkb.http.caching import conditional
from errorkb.http.methods import SAFE_METHODS, answers
from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import VerificationRun
from errorkb.verification.overview import (
    entries_by_state,
    longest_unrun,
    planned_because,
    recent_sweeps,
    runs_per_day,
)
from errorkb.verification.schedule import next_sweep

from .chart import stacked_bars

Status = VerificationRun.Status
# Bottom to top: the outcomes that prove something, then the ones that do not, then runs
# still going.
CHART_ORDER = [
    Status.REPRODUCED,
    Status.FIXED,
    Status.NOT_REPRODUCED,
    Status.ERROR,
    Status.UNSUPPORTED,
    Status.RUNNING,
]


# The page's ETag comes from the content token (errorkb.kb.changes), which moves with
# every write of verification's rows (runs, sweeps, stored states) and of
# django-celery-beat's (the schedule): each run that finishes moves it, so a reader
# revalidating during a running sweep gets the new count, never a 304 for an older
# one. Nothing shown depends on the clock (see runs_per_day, next_sweep). If validators
# ever stop moving on every run, this page needs one that still does.
@answers(*SAFE_METHODS)
@conditional
def verification(request):
    sweeps = recent_sweeps()
    published = ErrorEntry.objects.published()
    context = {
        "last_sweep": sweeps[0] if sweeps else None,
        "planned_because": planned_because(sweeps[0].sweep) if sweeps else [],
        "running": [progress for progress in sweeps[1:] if progress.running],
        "next_sweep": next_sweep(),
        "recheck_nights": settings.VERIFY_RECHECK_NIGHTS,
        "longest_unrun": longest_unrun(published),
        "groups": entries_by_state(published),
        "chart": stacked_bars(
            runs_per_day(), [(s.value, s.value.replace("_", " ")) for s in CHART_ORDER]
        ),
    }
    return render(request, "kb/verification.html", context)
