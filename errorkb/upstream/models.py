"""What the scanner keeps between scans: each scan it made, and the tree of the last one."""

from django.db import models

from errorkb.kb.models import Repository


class ScanQuerySet(models.QuerySet):
    def heads(self):
        """Scans of a branch or commit, not of a release tag."""
        return self.filter(release="")

    def releases(self):
        return self.exclude(release="")


class Scan(models.Model):
    """One scan of one commit: of a head (release "") or of a release's tag."""

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="scans")
    commit = models.CharField(max_length=40)
    ref = models.CharField(max_length=200, blank=True)  # what was asked: HEAD, a sha, a tag
    release = models.CharField(max_length=100, blank=True)  # "0.19.1" for the tag v0.19.1
    scanner_version = models.PositiveSmallIntegerField()
    finished_at = models.DateTimeField(auto_now_add=True)
    files = models.PositiveIntegerField(default=0)  # source files in the tree
    files_read = models.PositiveIntegerField(default=0)  # of them, parsed by this scan
    sites = models.PositiveIntegerField(default=0)

    objects = ScanQuerySet.as_manager()

    class Meta:
        ordering = ["-finished_at", "-id"]
        constraints = [
            # A release is scanned once: a later scan of it replaces the row.
            models.UniqueConstraint(
                fields=["repository", "release"],
                condition=~models.Q(release=""),
                name="one_scan_per_release",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.repository} {self.release or self.ref} @ {self.commit[:12]}"


class ScannedFile(models.Model):
    """A source file of the repository's last head scan, with the sites found in it.

    The next head scan reads only the files git says changed since that scan's commit
    and takes the rest from here.
    """

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="scanned_files"
    )
    path = models.CharField(max_length=1000)
    blob = models.CharField(max_length=40)  # git's object id of the file's content
    sites = models.JSONField(default=list)  # Site.to_json() of each site, in file order

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["repository", "path"], name="one_scanned_file"),
        ]

    def __str__(self) -> str:
        return self.path


class ReleaseSite(models.Model):
    """An error site that the repository's release scans found: its file, line and message,
    and every scanned release that has it there.

    The lookup reads them all into its index (lookup.story.upstream_lines) to name the upstream
    line a pasted panic points at when no entry explains it yet. They are the scanner's
    findings, never published entries.
    """

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="release_sites"
    )
    path = models.CharField(max_length=1000)
    line = models.PositiveIntegerField()
    message = models.TextField()  # as written in the source, placeholders kept
    pattern = models.TextField()  # what it prints, as messages.pattern_of writes it
    error_type = models.CharField(max_length=20)
    releases = models.JSONField(default=list)  # release names, oldest first

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.message[:60]}"
