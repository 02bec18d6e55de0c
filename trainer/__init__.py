"""The errorkb reference trainer: burn-train's checkpointing, mirrored in PyTorch.

A small MLP trained with AdamW and a cosine schedule, checkpointed exactly the
way burn-train does it (file and async checkpointers, keep-last-N / metric /
composed strategies, burn's error texts), plus a registry of scenarios that
reproduce each checkpoint failure with a real OS fault, and a runner that runs
one scenario in an isolated process.  Nothing here imports Django or errorkb.

Stable interface (errorkb relies on it):

``python -m trainer scenarios``
    Prints the registry as a JSON list.  Each item has at least ``name``,
    ``message`` (one of the eleven burn messages), ``description``, ``setup``
    (checkpointer sync/async, interrupter, strategy, phase), ``fault``,
    ``target``, ``epoch``, ``expected_pattern`` (regex for the full message),
    ``expected_errno`` (int or null) and ``fix``.

``python -m trainer reproduce SCENARIO [--device cpu|cuda] [--fixed] [--timeout S]``
    Runs the scenario (or its fixed variant) in a fresh isolated process and
    prints one outcome JSON object on stdout with the keys ``scenario``,
    ``variant`` ("failure"|"fixed"), ``status`` (reproduced | not_reproduced |
    fixed | unsupported | error), ``message`` (the full observed message),
    ``errno``, ``exception_chain``, ``device``, ``torch_version``,
    ``python_version``, ``trainer_version``, ``epochs_run``, ``duration_s``,
    ``log_tail``, ``reason`` (why unsupported / not reproduced / not fixed),
    ``documented_message``, ``expected_pattern``, ``expected_errno`` and
    ``expected_status``.  Exit status: 0 when ``status`` is what the variant
    expects ("reproduced" for the failure, "fixed" for the fix), 3 when
    unsupported on this host, 1 otherwise.  ``error`` means the harness failed
    (timeout, crash); ``not_reproduced`` means the claim did not hold.

``python -m trainer train --epochs N --artifact-dir DIR [--resume EPOCH]``
    A plain training run.

Importable: :func:`trainer.runner.run_scenario` (same outcome dict as the CLI)
and :mod:`trainer.scenarios` (``SCENARIOS``, ``get(name)``, ``registry()``).
Neither imports torch; only the scenario process does.
"""

__version__ = "0.1.0"
