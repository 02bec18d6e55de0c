"""The backend fails while the checkpointer's worker reads a record's tensors."""

from __future__ import annotations

from trainer.faults.base import Fault


class UnreadableTensor(Fault):
    """The model's record holds a tensor whose data cannot be read (a meta tensor).

    burn's record is lazy: the worker reads the tensors' data when it writes the record,
    and on the fusion and cubecl backends that runs the kernels still queued, where a
    backend bug panics.  Torch refusing to read a tensor with no data is that panic: a real
    failure of the backend, on the worker's thread, before any file is touched.
    """

    kind = "unreadable-tensor"
    description = (
        "the model's record holds a meta tensor: reading its data to write the record "
        "fails in the backend (torch: 'Cannot copy out of meta tensor; no data!')"
    )

    def strike_learner(self, learner, epoch: int, *, fixed: bool) -> None:
        if fixed:
            return  # the fix: a backend that reads every tensor (no such tensor in the record)
        import torch

        def unreadable(module, state, prefix, metadata):
            name = f"{prefix}hidden.weight"
            state[name] = torch.empty_like(state[name], device="meta")

        learner.model.register_state_dict_post_hook(unreadable)
