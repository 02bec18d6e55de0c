"""What the entries' admin shows of the upstream scanner: raisedIn, removedUpstream, a filter.

Both are the scanner's (errorkb.upstream): the change form shows them and never edits them.
"""

from django.contrib import admin
from django.utils.html import format_html, format_html_join

SHORT_SHA = 12
FIELDS = ("raised_in_summary", "removed_upstream_summary")


class RemovedUpstreamFilter(admin.SimpleListFilter):
    title = "removed upstream"
    parameter_name = "removed_upstream"

    def lookups(self, request, model_admin):
        return (("yes", "Yes"), ("no", "No"))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.removed_upstream()
        if self.value() == "no":
            return queryset.still_raised()
        return queryset


class UpstreamColumns:
    """The change form's read-only view of the scanner's raisedIn and removedUpstream."""

    @admin.display(description="raised in")
    def raised_in_summary(self, entry):
        if entry.raised_in is None:
            return "No release scan has looked for it yet."
        if not entry.raised_in:
            return "Not raised in any scanned release."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}:{}</code></td></tr>",
            (
                (row["release"], row["commit"][:SHORT_SHA], row["filePath"], row["lineNumber"])
                for row in entry.raised_in
            ),
        )
        return format_html(
            '<table id="raised-in"><tr><th>release</th><th>commit</th><th>raised at</th></tr>'
            "{}</table>",
            rows,
        )

    @admin.display(description="removed upstream")
    def removed_upstream_summary(self, entry):
        removed = entry.removed_upstream
        if removed is None:
            return "No: the last scan still finds it, or none has looked."
        last = removed["lastCommit"]
        return format_html(
            '<span id="removed-upstream">Not raised at <code>{}</code>; last raised in {} ({}).'
            "</span>",
            removed["commit"][:SHORT_SHA],
            removed["lastRelease"] or "no scanned release",
            last[:SHORT_SHA] if last else "no scanned commit",
        )
