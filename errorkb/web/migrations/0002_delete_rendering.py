# The entry page's body is kept with the whole page in Django's cache (errorkb.http.caching),
# under the page's ETag, so the table of renderings keyed by a hash of their inputs goes.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("web", "0001_renderings"),
    ]

    operations = [
        migrations.DeleteModel(name="Rendering"),
    ]
