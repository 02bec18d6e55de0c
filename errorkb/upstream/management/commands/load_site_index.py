"""python manage.py load_site_index FILE: a shipped scan of a repository's release tags."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from errorkb.upstream.scan.site_index import SiteIndexError, load_site_index, read_site_index


class Command(BaseCommand):
    help = (
        "Load a site index (scan_source --site-index writes one): the repository's release "
        "scans and every error site they found, replacing what the database held for it."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the site index, JSON or gzip-compressed JSON")

    def handle(self, *args, file: str, **options):
        try:
            index = read_site_index(Path(file))
        except SiteIndexError as error:
            raise CommandError(str(error)) from error
        repository, releases, sites = load_site_index(index)
        self.stdout.write(f"{repository}: {releases} releases, {sites:,} sites from {file}")
