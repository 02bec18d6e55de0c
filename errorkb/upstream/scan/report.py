"""A scan's report as lines of text, for the command (and anyone who prints one)."""

from collections.abc import Iterator

from errorkb.upstream.raised_ranges import raised_ranges, raised_span

from .repository import ScanReport

# Lists longer than this print their first lines and a count (verbosity 2 prints all).
SHOWN = 20


def report_lines(report: ScanReport, verbosity: int = 1) -> Iterator[str]:
    tree, head = report.tree, report.head
    how = f"incremental from {report.incremental_from[:12]}" if report.incremental_from else "full"
    yield (
        f"{report.repo} at {tree.commit[:12]} ({report.ref}, {how}): {tree.total:,} source "
        f"files, {tree.read:,} read, {tree.site_count:,} error sites"
    )
    limit = None if verbosity >= 2 else SHOWN
    yield from _listed("drafted", [_draft(p, s) for p, s in head.drafts], limit)
    yield from _listed("re-pinned", [_repin(r) for r in head.repins], limit)
    yield from _listed(
        "raised again (flag cleared, re-pinned)", [_repin(r) for r in head.restored], limit
    )
    yield f"  unchanged: {len(head.unchanged):,}"
    # As the releases left it: they may name a later release and commit that raised it.
    final = report.releases.removed if report.releases else {}
    flagged = [
        f"{e.id} {e.error_message!r} (last raised {_last(final.get(e.id) or r)})"
        for e, r in head.flagged
    ]
    yield from _listed("flagged removed upstream", flagged, limit)
    yield from _listed("still removed upstream", [_entry(e) for e in head.still_removed], limit)
    untracked = [
        f"{_entry(e)}: no site the scanner reads raises it at its pin" for e in head.untracked
    ]
    yield from _listed("not tracked", untracked, limit)
    if head.skipped:
        why = "same message and file as another, or its id is taken"
        yield f"  sites not drafted ({why}): {head.skipped:,}"
    if report.releases is not None:
        yield from _releases(report, limit)
    if report.ignored_tags:
        yield f"tags matching but not releases, skipped: {', '.join(report.ignored_tags)}"
    if report.dry_run:
        yield "dry run: nothing was written"


def _releases(report: ScanReport, limit: int | None) -> Iterator[str]:
    plan = report.releases
    names = [scan.release.name for scan in plan.scans]
    read = sum(scan.tree.read for scan in plan.scans)
    total = sum(scan.tree.total for scan in plan.scans)
    span = f"{names[0]} … {names[-1]}"
    yield f"releases: {len(plan.scans)} ({span}), {read:,} of {total:,} files read"
    for scan in plan.scans:
        tree = scan.tree
        yield (
            f"  {scan.release.tag:<16} {tree.commit[:12]}  {tree.read:>6,} read  "
            f"{tree.site_count:>6,} sites  {scan.raised:>5,} entries raised"
        )
    lines = []
    for entry in plan.changed:
        rows = plan.rows[entry.id]
        if not rows:
            lines.append(f"{_entry(entry)}: raised in no scanned release")
            continue
        where = "; ".join(
            f"{r.versions} {r.file_path}:{r.line_number}" for r in raised_ranges(rows, names)
        )
        lines.append(f"{_entry(entry)}: raised in {raised_span(rows, names)}: {where}")
    yield from _listed("raisedIn set", lines, limit)


def _listed(title: str, lines: list[str], limit: int | None) -> Iterator[str]:
    yield f"  {title}: {len(lines):,}"
    shown = lines if limit is None else lines[:limit]
    for line in shown:
        yield f"    {line}"
    if len(shown) < len(lines):
        yield f"    … and {len(lines) - len(shown):,} more (-v 2 lists all)"


def _entry(entry) -> str:
    return f"{entry.id} {entry.error_message!r}"


def _draft(path: str, site) -> str:
    return f"{site.message!r} {path}:{site.line}"


def _repin(repin) -> str:
    return f"{_entry(repin.entry)} {repin.before} -> {repin.path}:{repin.site.line}"


def _last(removed: dict) -> str:
    commit = removed["lastCommit"][:12] if removed["lastCommit"] else "at no known commit"
    release = f", release {removed['lastRelease']}" if removed["lastRelease"] else ""
    return f"{commit}{release}"
