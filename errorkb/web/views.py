"""Public pages: the home page, a repository's entries, a tag's, the entry page, its report form."""

from itertools import groupby
from operator import attrgetter

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from rest_framework.exceptions import Throttled

from errorkb.http.caching import conditional, conditional_entry
from errorkb.http.clients import client_key
from errorkb.http.methods import SAFE_METHODS, answers
from errorkb.http.throttles import ReportThrottle, check_throttle
from errorkb.kb.models import ErrorEntry, Report, Repository
from errorkb.kb.record.names import page_address
from errorkb.upstream.scanned_releases import scanned_releases
from errorkb.verification.models import VERIFIED_MEANS
from errorkb.verification.state.judging import verification_of
from errorkb.verification.state.per_release import (
    AtRelease,
    UnknownRelease,
    claims_for,
    fix_for,
    release_asked,
    state_at,
)
from errorkb.verification.state.stored import stored_state, with_stored_state

from . import upstream
from .forms import ReportForm
from .renderings import render_body

RECENT_ENTRIES = 20
# What a repository's page shows of each of its (hundreds of) entries: read no more.
LISTED = (
    "slug",
    "repository__owner",
    "repository__name",
    "error_message",
    "error_type",
    "file_path",
    "line_number",
    "removed_upstream",
)


@answers(*SAFE_METHODS)
@conditional
def home(request):
    repositories = Repository.objects.with_published_entries()
    recent = with_stored_state(ErrorEntry.objects.published().with_tags().recently_changed())
    context = {"repositories": repositories, "recent": recent[:RECENT_ENTRIES]}
    return render(request, "kb/home.html", context)


@answers(*SAFE_METHODS)
@conditional
def repository(request, owner: str, name: str):
    repo = get_object_or_404(Repository, owner=owner, name=name)
    entries = list(with_stored_state(repo.entries.published().with_tags().only(*LISTED)))
    if not entries:
        raise Http404("This repository has no published entries.")
    context = {"repository": repo, "entries": entries, "files": _by_file_and_type(entries)}
    return render(request, "kb/repository.html", context)


def _by_file_and_type(entries: list[ErrorEntry]) -> list[tuple[str, list]]:
    """[(file_path, [(error_type, entries), ...]), ...]: files in order, entries without one last.

    An entry without a file has "" for its file_path group, whether it holds "" or null.
    """

    def order(entry: ErrorEntry):
        return (not entry.file_path, entry.file_path or "", entry.error_type, entry.error_message)

    def file_of(entry: ErrorEntry) -> str:
        return entry.file_path or ""

    files = []
    for file_path, in_file in groupby(sorted(entries, key=order), key=file_of):
        types = [(kind, list(group)) for kind, group in groupby(in_file, attrgetter("error_type"))]
        files.append((file_path, types))
    return files


@answers(*SAFE_METHODS)
@conditional
def tag(request, tag: str):
    entries = with_stored_state(ErrorEntry.objects.published().tagged(tag).with_tags())
    entries = list(entries.order_by("repository__owner", "repository__name", "error_message"))
    if not entries:
        raise Http404("No published entry has this tag.")
    return render(request, "kb/tag.html", {"tag": tag, "entries": entries})


@answers(*SAFE_METHODS)
@conditional_entry
def entry_by_id(request, entry_id: str):
    return _render_entry(request, _shown_entries().filter(id=entry_id))


@answers(*SAFE_METHODS)
@conditional_entry
def entry(request, owner: str, name: str, slug: str):
    return _render_entry(request, _shown_entries().at_address(owner, name, slug))


def _shown_entries():
    return with_stored_state(ErrorEntry.objects.published().for_record())


def _render_entry(request, entries):
    entry = entries.first()
    if entry is None:
        raise Http404("No published entry has this address.")
    verification = verification_of(entry)
    release, refused = _release_asked(request, entry)
    claims = claims_for(entry, verification)
    at = state_at(entry, release, claims)
    context = {
        "entry": entry,
        "rendered": render_body(entry),
        "related": entry.related_entries(),
        "removed": upstream.removed(entry),
        # What the first screen answers: the state at the reader's release (entry-wide
        # without one), the fix for it, and the run that proves it.
        "at": at,
        "claims": claims,
        "first_fix": fix_for(entry.solutions, release),
        "proof": _proof_of(at),
        "refused_release": refused,
        # The per-scenario details are derived; the panel's state is the stored one.
        "verification": verification,
        "verified_means": VERIFIED_MEANS,
        "state": stored_state(entry),
        "canonical_url": request.build_absolute_uri(entry.get_absolute_url()),
        # "" when the id cannot form an address (names.page_address): shown unlinked.
        "json_url": page_address("api-error-detail", pk=entry.id),
        "runs_url": page_address("api-error-runs", pk=entry.id),
        "report_url": page_address("web:report", entry_id=entry.id),
    }
    return render(request, "kb/entry.html", context, status=400 if refused else 200)


def _release_asked(request, entry: ErrorEntry) -> tuple[str | None, str]:
    """The release of ?release=, and why it was refused ("" when it was not)."""
    asked = request.GET.get("release")
    if not asked:
        return None, ""
    try:
        return release_asked(asked, scanned_releases(entry.repository)), ""
    except UnknownRelease as error:
        return None, str(error)


def _proof_of(at: AtRelease):
    """The claim whose proof the first screen shows: one deciding the state shown, with a
    proof when one has it; None when the entry states no release or set-up.

    Never another claim's proof: a run that confirmed what another set-up prints proves
    nothing of the state shown.
    """
    deciding = [c for c in at.claims if c.state == at.state] or at.claims
    return next((c for c in deciding if c.proof), deciding[0] if deciding else None)


# Not @conditional: the page is per reader and carries a CSRF token.
@answers(*SAFE_METHODS, "POST")
def report(request, entry_id: str):
    entry = get_object_or_404(ErrorEntry.objects.published(), id=entry_id)
    if request.method != "POST":
        context = {"entry": entry, "form": ReportForm(), "sent": "sent" in request.GET}
        return render(request, "kb/report.html", context)

    form = ReportForm(request.POST)
    if not form.is_valid():
        return render(request, "kb/report.html", {"entry": entry, "form": form}, status=400)
    data = form.cleaned_data
    try:
        check_throttle(request, ReportThrottle)
    except Throttled as refused:
        context = {"entry": entry, "form": form, "rate_limited": True}
        response = render(request, "kb/report.html", context, status=429)
        response["Retry-After"] = str(refused.wait)
        return response
    Report.objects.create(
        entry=entry, message=data["message"], contact=data["contact"], client=client_key(request)
    )
    # 303: reloading the thank-you page must not post the report again.
    return HttpResponseRedirect(f"{request.path}?sent=1", status=303)
