"""What the entries' admin shows of verification: the state column, filter and summary.

The admin is a web app: it asks verification for an entry's state and hands kb what it
needs, as the publishing warnings do.
"""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from errorkb.kb import workflow
from errorkb.kb.models import ErrorEntry
from errorkb.verification.state.judging import State, verification_of
from errorkb.verification.state.stored import ANNOTATION, in_state, stored_state, with_stored_state

RUNS_SHOWN = 10
# A proof of absence is a proof too: the runs show burn never prints the message.
PROVED = (State.VERIFIED, State.UNREACHABLE)


def warnings_for(entry: ErrorEntry) -> list[str]:
    """Why publishing the entry deserves a second look, its (stored) verification state included."""
    state = stored_state(entry)
    return workflow.publish_warnings(entry, verified=state in PROVED, state_label=state.label)


class VerificationStateFilter(admin.SimpleListFilter):
    title = "verification state"
    parameter_name = "verification"

    def lookups(self, request, model_admin):
        return State.choices

    def queryset(self, request, queryset):
        if self.value() not in State.values:
            return queryset
        return in_state(queryset, self.value())


class VerificationColumns:
    """The entry admin's verification column and the summary on the change form."""

    def get_queryset(self, request):
        # The stored state rides along in the list's own query: no query per row.
        return with_stored_state(super().get_queryset(request))

    @admin.display(description="verification", ordering=ANNOTATION)
    def verification_column(self, entry):
        return stored_state(entry).label

    @admin.display(description="verification")
    def verification_summary(self, entry):
        if not entry.pk:
            return "Not verified yet: save the entry, link a scenario and re-verify it."
        # The state is the stored one lists and filters show; the runs below are read now.
        state = stored_state(entry)
        verification = verification_of(entry)
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (run.started_at, run.scenario_id, run.variant, run.device, run.status)
                for run in verification.history[:RUNS_SHOWN]
            ),
        )
        runs_url = reverse("admin:verification_verificationrun_changelist")
        return format_html(
            '<p>State: <strong class="state-{}">{}</strong>. '
            '<a href="{}?entry__id__exact={}">All runs</a></p>'
            "<table><tr><th>started</th><th>scenario</th><th>variant</th><th>device</th>"
            "<th>status</th></tr>{}</table>",
            state,
            state.label,
            runs_url,
            entry.pk,
            rows or mark_safe('<tr><td colspan="5">No runs yet.</td></tr>'),
        )
