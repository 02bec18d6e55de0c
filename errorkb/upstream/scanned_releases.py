"""The releases a repository's scans have read, for the views that show an entry's ranges."""

from errorkb.kb.models import Repository
from errorkb.kb.record.release_ranges import release_key

from .models import Scan


def scanned_releases(repository: Repository) -> list[str]:
    """Every release scanned for the repository, oldest first."""
    names = Scan.objects.releases().filter(repository=repository).values_list("release", flat=True)
    return sorted(names, key=release_key)
