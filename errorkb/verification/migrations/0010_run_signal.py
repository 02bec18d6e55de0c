from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verification", "0009_entry_state_entry_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="verificationrun",
            name="signal",
            field=models.CharField(blank=True, max_length=16),
        ),
    ]
