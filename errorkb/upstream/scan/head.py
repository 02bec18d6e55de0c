"""A head scan meets the knowledge base: new sites drafted, known entries re-pinned or flagged.

plan_head() reads and decides; apply_head() writes, inside the caller's transaction and
revision, every change through kb.editing.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from django.utils import timezone

from errorkb.kb import editing
from errorkb.kb.ids import derive_entry_id
from errorkb.kb.models import ErrorEntry, Repository
from errorkb.kb.record.lengths import DOCUMENT_LENGTH

from ..git import Checkout
from ..sites.commit import Tree, read_lines
from ..sites.error_sites import Site
from .entry_matching import PinnedEntry, SiteAt, known_entries, pair
from .seen_raised import last_raised

# Slugs are cut at a word boundary to about this length: the page address stays readable.
SLUG_LENGTH = 80
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass
class Repin:
    entry: PinnedEntry
    path: str
    site: Site
    before: str  # "file:line" as the entry had it


@dataclass
class HeadPlan:
    repository: Repository
    tree: Tree
    drafts: list[SiteAt] = field(default_factory=list)
    repins: list[Repin] = field(default_factory=list)
    restored: list[Repin] = field(default_factory=list)  # flagged, and raised again
    unchanged: list[PinnedEntry] = field(default_factory=list)
    flagged: list[tuple[PinnedEntry, dict]] = field(default_factory=list)
    untracked: list[PinnedEntry] = field(default_factory=list)
    still_removed: list[PinnedEntry] = field(default_factory=list)
    skipped: int = 0  # sites sharing a draft's message and file, or an existing id


def plan_head(repository: Repository, checkout: Checkout, tree: Tree) -> HeadPlan:
    """What a scan of tree.commit changes in the repository's entries; writes nothing."""
    entries = known_entries(ErrorEntry.objects.filter(repository=repository))
    taken, left = pair([e.pin for e in entries], list(tree.sites()))
    plan = HeadPlan(repository, tree)
    pinned = checkout.blobs_at(
        [(e.analyzed_sha, e.file_path) for e in entries if _has_pin(e) and e.id in taken]
    )
    for entry in entries:
        if entry.id in taken:
            at_pin = pinned.get((entry.analyzed_sha, entry.file_path))
            _place(plan, entry, *taken[entry.id], at_pin)
        elif entry.removed_upstream is not None:
            plan.still_removed.append(entry)
        else:
            last = last_raised(checkout, entry)
            if last is None:
                plan.untracked.append(entry)
            else:
                plan.flagged.append((entry, {"commit": tree.commit, **last}))
    plan.drafts, plan.skipped = _new_sites(repository, left, {e.id for e in entries})
    return plan


def _has_pin(entry: PinnedEntry) -> bool:
    return bool(entry.analyzed_sha and entry.file_path)


def _place(plan: HeadPlan, entry: PinnedEntry, path: str, site, blob_at_pin) -> None:
    repin = Repin(entry, path, site, f"{entry.file_path}:{entry.line_number}")
    # A pin stays true while the file at its commit is the file now: same bytes, same
    # line. Moving every entry to each new commit would churn revisions for nothing.
    same_file = blob_at_pin == plan.tree.files[path].blob
    if entry.removed_upstream is not None:
        plan.restored.append(repin)
    elif (entry.file_path, entry.line_number) != (path, site.line) or not same_file:
        plan.repins.append(repin)
    else:
        plan.unchanged.append(entry)


def _new_sites(repository, left: list[SiteAt], known_ids: set[str]):
    """The sites to draft, and how many left sites are not drafted."""
    ids = {}
    for path, site in left:
        # One entry per message and file: a second site of it there is the same error.
        ids.setdefault(derive_entry_id(repository.full_name, site.message, path), (path, site))
    # An id may be taken by an entry whose message a curator has since edited.
    taken = set(ErrorEntry.objects.filter(id__in=list(ids)).values_list("id", flat=True))
    skip = known_ids | taken
    drafts = [located for entry_id, located in ids.items() if entry_id not in skip]
    return drafts, len(left) - len(drafts)


def apply_head(plan: HeadPlan, checkout: Checkout, user=None) -> None:
    """Write the plan: inside the caller's transaction and revision."""
    tree = plan.tree
    paths = {path for path, _ in plan.drafts} | {r.path for r in plan.repins + plan.restored}
    lines = read_lines(checkout, tree, paths)
    now = timezone.now()
    slugs = _slug_maker(plan.repository)
    editing.create_many(
        [
            _draft(plan.repository, path, site, lines[path], tree.commit, now, slugs)
            for path, site in plan.drafts
        ]
    )
    repins = plan.repins + plan.restored
    changed = ErrorEntry.objects.in_bulk(
        [r.entry.id for r in repins] + [e.id for e, _ in plan.flagged]
    )
    for repin in repins:
        entry = changed[repin.entry.id]
        with editing.change(entry, user, comment="Re-pinned by a scan"):
            _pin(
                entry, plan.repository, repin.path, repin.site, lines[repin.path], tree.commit, now
            )
            entry.removed_upstream = None
            entry.save()
    for known, removed in plan.flagged:
        entry = changed[known.id]
        with editing.change(entry, user, comment="Flagged removed upstream by a scan"):
            entry.removed_upstream = removed
            entry.save()


def _pin(entry, repository, path, site, lines, commit, now) -> None:
    start, end = site.snippet_start, site.snippet_end
    entry.file_path = path
    entry.line_number = site.line
    entry.source_code = "\n".join(lines[start - 1 : end])
    if len(entry.source_code) > DOCUMENT_LENGTH:  # lines of generated or minified code
        start = end = site.line
        entry.source_code = lines[start - 1][:DOCUMENT_LENGTH]
    entry.source_code_start, entry.source_code_end = start, end
    entry.analyzed_sha = commit
    entry.analyzed_at = now
    entry.github_url = f"{repository.url}/blob/{commit}/{path}#L{start}-L{end}"


def _draft(repository, path, site, lines, commit, now, slugs) -> ErrorEntry:
    entry = ErrorEntry(
        repository=repository,
        status=ErrorEntry.Status.DRAFT,
        error_message=site.message,
        message_pattern=site.pattern,
        error_type=site.error_type,
        error_class=site.error_class,
        severity=ErrorEntry.Severity.ERROR,
    )
    _pin(entry, repository, path, site, lines, commit, now)
    entry.id = derive_entry_id(repository.full_name, site.message, path)
    entry.slug = slugs(site.message, entry.id)
    return entry


def _slug_maker(repository: Repository):
    used = set(ErrorEntry.objects.filter(repository=repository).values_list("slug", flat=True))

    def make(message: str, entry_id: str) -> str:
        base = _cut(_slugged(message)) or f"error-{entry_id}"
        slug, n = base, 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        return slug

    return make


def _slugged(message: str) -> str:
    # Punctuation separates words, as spaces do: "input: {x!r}" reads "input-x-r".
    ascii_text = unicodedata.normalize("NFKD", message).encode("ascii", "ignore").decode()
    return _NOT_SLUG.sub("-", ascii_text.lower()).strip("-")


def _cut(slug: str) -> str:
    if len(slug) <= SLUG_LENGTH:
        return slug.strip("-")
    return slug[:SLUG_LENGTH].rsplit("-", 1)[0].strip("-")
