from django.core.management.base import BaseCommand, CommandError

from errorkb.kb.models import ErrorEntry
from errorkb.verification.state.stored import differences, store_states


class Command(BaseCommand):
    help = (
        "Derive every entry's verification state from its runs, their texts judged against "
        "the entry's pattern as it is now, and report each one whose stored state differs; "
        "with --fix, store the derived states."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fix", action="store_true", help="store the derived states")

    def handle(self, *args, fix: bool, **options):
        # Listed first: writing while the query still reads would change what it reads.
        found = list(differences(ErrorEntry.objects.all()))
        for difference in found:
            self.stdout.write(
                f"{difference.entry_id}: stored {difference.stored.value}, "
                f"derived {difference.derived.value}"
            )
        if fix:
            store_states(difference.entry_id for difference in found)
        count = len(found)
        if not found:
            self.stdout.write("every stored state matches its runs")
        elif fix:
            self.stdout.write(f"fixed {count} entr{'y' if count == 1 else 'ies'}")
        else:
            raise CommandError(
                f"{count} entr{'y differs' if count == 1 else 'ies differ'}: "
                "run with --fix to store the derived states"
            )
