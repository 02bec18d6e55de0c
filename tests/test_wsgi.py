"""The process gunicorn starts: errorkb.wsgi, in a fresh interpreter of its own."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTED = """
import gc, json
from errorkb import wsgi
print(json.dumps({"threshold": gc.get_threshold(), "young": wsgi.YOUNG_OBJECTS,
                  "frozen": gc.get_freeze_count()}))
"""


def test_a_server_process_freezes_what_it_loaded_and_collects_young_objects_seldom():
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "errorkb.settings"}
    done = subprocess.run(
        [sys.executable, "-c", STARTED], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout.splitlines()[-1])
    assert started["threshold"][0] == started["young"] > 700  # Python's default: 700
    assert started["frozen"] > 10_000  # Django, the URLconf and every view, loaded and frozen
