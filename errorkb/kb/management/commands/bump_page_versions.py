from django.core.management.base import BaseCommand

from errorkb.kb.changes import catalog_changed


class Command(BaseCommand):
    help = (
        "Move the versions every public page and API answer is validated and cached by, "
        "after a write the application did not make (raw SQL, another program): no "
        "page or answer rendered before is served again."
    )

    def handle(self, *args, **options):
        # Every entry page's version holds the catalog's; the lists' is moved with it.
        catalog_changed()
        self.stdout.write("Moved the versions of every page.")
