"""Weight files burn imports, and burn-store's readers of them, mirrored.

``files`` writes the files with the real ``torch.save`` and ``safetensors`` packages: a
``state_dict``, a whole module, the legacy (non-zip) format, renamed keys, other shapes
and dtypes.  ``pickle``, ``pytorch`` and ``store`` mirror burn-store at main (2c06be35):
its pickle reader, its ``PytorchReader``, and its ``PytorchStore`` and
``SafetensorsStore`` loading into a module (``module``) with burn's checks, in burn's
order, raising errors whose ``str()`` and ``debug()`` are burn's Display and Debug, built
only from ``trainer.burn.weights``'s cited texts.  A path of burn's the mirror does not
follow raises ``Unmirrored``, never a guess.
"""
