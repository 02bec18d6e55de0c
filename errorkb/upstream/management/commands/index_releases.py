"""python manage.py index_releases --git BURN_GIT_DIR [--out tests/upstream/burn/index.json]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from errorkb.upstream.claims.release_index import (
    FIRST_RELEASE,
    LAST_RELEASE,
    MAIN,
    MAIN_COMMIT,
    index_releases,
    release_tags,
    write_index,
)
from errorkb.upstream.git import Checkout, GitError


class Command(BaseCommand):
    help = (
        "Write the index of literals and items that check_claims reads: the files of "
        "burn's releases (tags FIRST to LAST, and main) that the entries cite."
    )

    def add_arguments(self, parser):
        parser.add_argument("--git", required=True, help="burn's git directory (bare or not)")
        parser.add_argument("--out", default="-", help="the index file to write (- for stdout)")
        parser.add_argument("--first", default=FIRST_RELEASE, help=f"oldest tag ({FIRST_RELEASE})")
        parser.add_argument("--last", default=LAST_RELEASE, help=f"newest tag ({LAST_RELEASE})")
        parser.add_argument("--main", default=MAIN_COMMIT, help="the commit read as main")

    def handle(self, *args, **options):
        try:
            checkout = Checkout(options["git"])
            releases = release_tags(checkout, options["first"], options["last"])
            releases.append((MAIN, checkout.resolve(options["main"])))
            index = index_releases(checkout, releases)
        except GitError as error:
            raise CommandError(str(error)) from error
        text = write_index(index)
        if options["out"] == "-":
            self.stdout.write(text, ending="")
            return
        Path(options["out"]).write_text(text, encoding="utf-8")
        self.stderr.write(
            f"{len(index['releases'])} releases, {len(index['files'])} files -> {options['out']}"
        )
