"""The tree of a repository's last head scan, kept in the database for the next one."""

from errorkb.kb.changes import catalog_changed
from errorkb.kb.models import Repository

from ..models import Scan, ScannedFile
from ..sites.commit import FileScan, Tree
from ..sites.error_sites import SCANNER_VERSION, Site


def last_head_scan(repository: Repository) -> Scan | None:
    return Scan.objects.heads().filter(repository=repository).first()


def stored_tree(repository: Repository) -> Tree | None:
    """The last head scan's tree, or None when there is none this scanner can build on."""
    last = last_head_scan(repository)
    if last is None or last.scanner_version != SCANNER_VERSION:
        return None
    files = {
        path: FileScan(blob, [Site.from_json(site) for site in sites])
        for path, blob, sites in ScannedFile.objects.filter(repository=repository).values_list(
            "path", "blob", "sites"
        )
    }
    return Tree(last.commit, files)


def store_tree(repository: Repository, tree: Tree, base: Tree | None) -> None:
    """Keep `tree` as the repository's last scanned tree, writing only what changed."""
    rows = ScannedFile.objects.filter(repository=repository)
    if base is None:
        rows.delete()
        changed = list(tree.files)
    else:
        gone = [path for path in base.files if path not in tree.files]
        changed = [p for p, f in tree.files.items() if base.files.get(p) is not f]
        rows.filter(path__in=gone + changed).delete()
    ScannedFile.objects.bulk_create(
        (
            ScannedFile(
                repository=repository,
                path=path,
                blob=tree.files[path].blob,
                sites=[site.to_json() for site in tree.files[path].sites],
            )
            for path in changed
        ),
        batch_size=500,
    )
    catalog_changed()  # entry pages show where the last scanned tree raises them


def record_scan(repository: Repository, tree: Tree, *, ref: str, release: str = "") -> Scan:
    """The scan's row; a release scanned again replaces its earlier row."""
    if release:
        Scan.objects.filter(repository=repository, release=release).delete()
    return Scan.objects.create(
        repository=repository,
        commit=tree.commit,
        ref=ref,
        release=release,
        scanner_version=SCANNER_VERSION,
        files=tree.total,
        files_read=tree.read,
        sites=tree.site_count,
    )
