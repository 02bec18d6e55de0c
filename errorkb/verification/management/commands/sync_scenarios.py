from django.core.management.base import BaseCommand

from errorkb.verification.sync import sync_scenarios


class Command(BaseCommand):
    help = (
        "Mirror the trainer's scenario registry in the database and link each scenario to "
        "the entries whose message it proves. Run it on every deploy."
    )

    def handle(self, *args, **options):
        self.stdout.write(f"scenarios: {sync_scenarios()}")
