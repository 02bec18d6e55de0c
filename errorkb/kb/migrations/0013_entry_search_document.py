"""Each entry's search head and document, generated from its row, and its tag names beside it.

The tag names are written for the entries there are (later, kb.editing and the import
write them with the tags). errorkb.search's migration 0003 indexes the document.
"""

from collections import defaultdict

import django.contrib.postgres.search
from django.db import migrations, models

import errorkb.kb.models.entries


def write_tags_text(apps, schema_editor):
    names = defaultdict(list)
    links = apps.get_model("kb", "EntryTag").objects.order_by("entry_id", "position")
    for entry_id, name in links.values_list("entry_id", "tag__name").iterator():
        names[entry_id].append(name)
    entries = apps.get_model("kb", "ErrorEntry")
    tagged = [entries(pk=pk, tags_text=" ".join(tags)) for pk, tags in names.items()]
    entries.objects.bulk_update(tagged, ["tags_text"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("kb", "0012_entry_summary"),
    ]

    operations = [
        migrations.AddField(
            model_name="errorentry",
            name="tags_text",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(write_tags_text, migrations.RunPython.noop),
        migrations.AddField(
            model_name="errorentry",
            name="search_head",
            field=models.GeneratedField(
                db_persist=True,
                expression=errorkb.kb.models.entries.PostgreSQLOnly(
                    django.contrib.postgres.search.CombinedSearchVector(
                        django.contrib.postgres.search.SearchVector(
                            "error_message", config="english", weight="A"
                        ),
                        "||",
                        django.contrib.postgres.search.SearchVector(
                            "tags_text",
                            errorkb.kb.models.entries.FilePathWords("file_path"),
                            config="english",
                            weight="B",
                        ),
                        django.contrib.postgres.search.SearchConfig("english"),
                    )
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
                serialize=False,
            ),
        ),
        migrations.AddField(
            model_name="errorentry",
            name="search_document",
            field=models.GeneratedField(
                db_persist=True,
                expression=errorkb.kb.models.entries.PostgreSQLOnly(
                    django.contrib.postgres.search.CombinedSearchVector(
                        django.contrib.postgres.search.CombinedSearchVector(
                            django.contrib.postgres.search.SearchVector(
                                "error_message", config="english", weight="A"
                            ),
                            "||",
                            django.contrib.postgres.search.SearchVector(
                                "tags_text",
                                errorkb.kb.models.entries.FilePathWords("file_path"),
                                config="english",
                                weight="B",
                            ),
                            django.contrib.postgres.search.SearchConfig("english"),
                        ),
                        "||",
                        django.contrib.postgres.search.SearchVector(
                            "documentation",
                            "trigger_scenarios",
                            "common_situations",
                            "solutions",
                            config="english",
                            weight="C",
                        ),
                        django.contrib.postgres.search.SearchConfig("english"),
                    )
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
                serialize=False,
            ),
        ),
    ]
