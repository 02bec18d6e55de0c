"""Which queue a task goes to, and which devices verification runs on.

Scenario runs for CUDA go to the `gpu` queue, consumed only by workers on a
machine with a GPU (bin/worker adds it there); everything else goes to `cpu`.
"""

from celery import current_app
from django.conf import settings

GPU_QUEUE = "gpu"
CPU_QUEUE = "cpu"


def route_task(name, args, kwargs, options, task=None, **kw):
    if name == "verification.run_scenario" and (kwargs or {}).get("device") == "cuda":
        return {"queue": GPU_QUEUE}
    return {"queue": CPU_QUEUE}


def served_devices(queues) -> list[str]:
    """The devices whose runs a worker consuming these queues (names) takes."""
    devices = {CPU_QUEUE: "cpu", GPU_QUEUE: "cuda"}
    return [device for queue, device in devices.items() if queue in queues]


def verification_devices() -> list[str]:
    """CPU always; CUDA too when settings say so, or when a worker consumes the gpu queue."""
    if settings.VERIFY_GPU == "never":
        return ["cpu"]
    if settings.VERIFY_GPU == "always" or gpu_worker_exists():
        return ["cpu", "cuda"]
    return ["cpu"]


def gpu_worker_exists(timeout: float = 1.0) -> bool:
    # current_app: the app the worker or the caller configured (errorkb.celery), without
    # a domain module importing the entry point.
    try:
        replies = current_app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception:  # no broadcast on this broker, or nobody answered: assume no GPU
        return False
    return any(q["name"] == GPU_QUEUE for queues in replies.values() for q in queues)
