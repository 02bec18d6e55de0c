"""Django on a SQLite database in memory, for a benchmark run as a script from bench/.

import in_memory  # first: it sets the environment up and calls django.setup()
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "errorkb.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ["DATABASE_URL"] = "sqlite://:memory:"

import django  # noqa: E402

django.setup()
