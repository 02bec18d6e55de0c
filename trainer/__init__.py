"""The errorkb reference trainer: burn-train's checkpointing, mirrored in PyTorch.

A small MLP trained with AdamW and a cosine schedule, checkpointed the way
burn-train does it (file and async checkpointers, keep-last-N / metric /
composed strategies), wired only as burn's public API allows (``burn.SETUPS``),
printing only burn's texts (``trainer/burn/``, each cited ``path:line@commit``); a
registry of scenarios that reproduce each checkpoint failure with a real OS
fault, and a runner that runs one scenario in an isolated process.  Nothing
here imports Django or errorkb.

Stable interface (errorkb relies on it):

``python -m trainer scenarios``
    Prints the registry as a JSON list.  Each item has at least ``name``,
    ``description``, ``release`` (the burn line mirrored: main | v0.19.1),
    ``versions``, ``setup`` (supervised | rl | hand-built | learner-builder),
    ``phase``, ``fault``, ``target``, ``epoch``, ``expected`` (regexes: every
    text the run prints, in order), ``expected_errno`` (int or null),
    ``expected_signal`` (the signal that ends the run, ``SIGXFSZ`` or ``SIGABRT``, or null),
    ``proves`` and ``disproves`` (messages shown / shown never to be printed in this
    set-up under this fault), ``citations`` (``path:line@commit``) and ``fix``.

``python -m trainer reproduce SCENARIO [--device cpu|cuda] [--fixed] [--timeout S] [--start S]``
    Runs the scenario (or its fixed variant) in a new isolated process (``--start
    fresh``, the default: a new interpreter; ``warm``: forked from a fork server) and
    prints one outcome JSON object on stdout with the keys ``scenario``,
    ``variant`` ("failure"|"fixed"), ``status`` (reproduced | not_reproduced |
    fixed | unsupported | error), ``texts`` (every text burn prints, in order:
    panics, the banner and log records), ``console`` (stderr as it shows them, panic
    locations included; after a signal, what a shell reports), ``experiment_log``
    (the log records, as burn's file logger writes them to experiment.log, less
    the timestamp), ``message`` (the first text), ``errno``, ``signal`` (the signal
    that ended the run, by name: ``SIGXFSZ`` past ``ulimit -f``, burn printing nothing;
    ``SIGABRT`` after a panic in a destructor during cleanup, its panics printed first),
    ``exception_chain``, ``device``, ``torch_version``,
    ``python_version``, ``trainer_version``, ``epochs_run``, ``duration_s``,
    ``log_tail``, ``reason`` (why unsupported / not reproduced / not fixed),
    ``release``, ``setup``, ``proves``, ``disproves``, ``expected``,
    ``expected_errno``, ``expected_signal`` and ``expected_status``.  Exit status:
    0 when ``status`` is what the variant expects ("reproduced" for the failure,
    "fixed" for the fix), 3 when unsupported on this host, 1 otherwise.  ``error``
    means the harness failed (timeout, crash); ``not_reproduced`` means the claim
    did not hold.

``python -m trainer train --epochs N --artifact-dir DIR [--resume EPOCH] [--setup NAME]``
    A plain training run.

Importable: :func:`trainer.runner.run_scenario` (same outcome dict as the CLI;
``start="warm"`` forks each run from this process's kept fork server, :mod:`trainer.warm`),
:mod:`trainer.outcome` (``Outcome.from_dict`` reads that dict back, refusing a
malformed one; ``Status`` and ``Variant`` are the vocabulary) and
:mod:`trainer.scenarios` (``SCENARIOS``, ``get(name)``, ``registry()``).
Neither imports torch; only the scenario process does (and the fork server, which
imports it but runs no torch operation).
"""

__version__ = "0.1.0"
