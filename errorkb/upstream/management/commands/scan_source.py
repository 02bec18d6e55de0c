"""python manage.py scan_source --repo OWNER/NAME --path CHECKOUT [--commit SHA] [--releases]"""

import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from errorkb.kb.models import Repository
from errorkb.upstream.scan.report import report_lines
from errorkb.upstream.scan.repository import ScanRefused, ScanRequest, scan_source
from errorkb.upstream.scan.site_index import export_site_index, write_site_index


class Command(BaseCommand):
    help = (
        "Scan a git checkout for error sites: draft entries for new ones, re-pin known "
        "entries, flag messages gone upstream; with --releases, record the releases that "
        "raise each message."
    )

    def add_arguments(self, parser):
        parser.add_argument("--repo", required=True, help="the repository, as OWNER/NAME")
        parser.add_argument("--path", required=True, help="a git checkout or bare git directory")
        parser.add_argument("--commit", default="HEAD", help="commit, branch or tag (HEAD)")
        parser.add_argument(
            "--releases",
            nargs="?",
            const="v*",
            metavar="GLOB",
            help="also scan the release tags matching GLOB (v* when given bare)",
        )
        parser.add_argument("--since", metavar="TAG", help="the oldest release to scan")
        parser.add_argument(
            "--skip-tags", action="append", default=[], metavar="GLOB", help="tags to leave out"
        )
        parser.add_argument(
            "--site-index",
            metavar="FILE",
            help="after the scan, write the repository's release scans and their sites to "
            "FILE (.gz compresses it), for load_site_index",
        )
        parser.add_argument("--dry-run", action="store_true", help="report, change nothing")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars")

    def handle(self, *args, **options):
        request = ScanRequest(
            repo=options["repo"],
            path=options["path"],
            commit=options["commit"],
            releases=options["releases"],
            since=options["since"],
            skip_tags=options["skip_tags"],
            dry_run=options["dry_run"],
        )
        began = time.monotonic()
        try:
            report = scan_source(request, None if options["no_progress"] else self._progress)
        except ScanRefused as refused:
            raise CommandError(str(refused)) from refused
        for line in report_lines(report, options["verbosity"]):
            self.stdout.write(line)
        if options["site_index"] and not options["dry_run"]:
            owner, name = options["repo"].split("/")
            repository = Repository.objects.get(owner=owner, name=name)
            index = export_site_index(repository)
            write_site_index(index, Path(options["site_index"]))
            self.stdout.write(
                f"site index: {len(index['releases'])} releases, {len(index['sites']):,} sites "
                f"-> {options['site_index']}"
            )
        self.stdout.write(f"took {time.monotonic() - began:.1f} s")

    def _progress(self, label: str):
        def start(total: int):
            # Only on a terminal (disable=None); a scan with nothing to read draws nothing.
            bar = tqdm(total=total, desc=label, unit="file", file=sys.stderr, disable=None)
            if total == 0:
                bar.close()

            def tick(count: int):
                bar.update(count)
                if bar.n >= total:
                    bar.close()

            return tick

        return start
