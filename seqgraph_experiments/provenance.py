"""
Where a result comes from, recorded beside it in every results JSON: the commit, the machine (CPU, its
vector instructions, cores, threads), the date and the command line; and the sha256 of the files it read.
"""
import datetime
import hashlib
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

from seqgraph_experiments import ROOT


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def repository_path(path: str) -> str:
    """`path` relative to the repository where it lies in it (as a clone names it), else as given."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def git_commit() -> str:
    """
    HEAD, with `+uncommitted` when the parser's code or the configs differ from it. A copy of the tree without
    its repository (sent to a GPU machine, say) names the commit it was made from in SEQGRAPH_GIT_COMMIT.
    """
    result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0 and os.environ.get("SEQGRAPH_GIT_COMMIT"):
        return os.environ["SEQGRAPH_GIT_COMMIT"] + " (a copy of the tree without .git)"
    dirty = subprocess.run(["git", "status", "--porcelain", "seqgraph_allennlp", "training_config"],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return result.stdout.strip() + ("+uncommitted" if dirty else "")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def omp_threads() -> Optional[int]:
    """The torch threads asked for through OMP_NUM_THREADS; None where it is not set (torch's default)."""
    return int(os.environ.get("OMP_NUM_THREADS", "0")) or None


def gpu_name(cuda_device: int) -> Optional[str]:
    if cuda_device < 0:
        return None
    import torch

    return torch.cuda.get_device_name(cuda_device)


def cpu_capability() -> Dict:
    """
    The vector instructions that torch's CPU kernels use here (`AVX2`, `AVX512`, ...) and whether oneDNN
    computes bfloat16 natively: machines of the same name differ in both, and a config that asks for
    bfloat16 training (`bfloat16_training`) trains in float32 where it is not native.
    """
    import torch

    from seqgraph_allennlp.modules.fused_bilstm import native_bfloat16

    return {"cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "native_bfloat16": native_bfloat16(torch.device("cpu"))}


def machine(cuda_device: int = -1) -> Dict:
    """Where a run ran; `gpu` names the GPU it trained on (`cuda_device`), None on the CPU."""
    return {
        "cpu_cores": os.cpu_count(),
        "cpu": cpu_model(),
        **cpu_capability(),
        "threads": omp_threads(),
        "gpu": gpu_name(cuda_device),
        "hostname_kind": platform.machine(),
        "python": platform.python_version(),
    }


def now() -> str:
    return datetime.datetime.now().isoformat(timespec="seconds")


def command_line(entry_point: str) -> str:
    """This process's command line as the tool's entry point (`scripts/X.py ARGS`), relative to the repository."""
    return f"{entry_point} {shlex.join(sys.argv[1:])}"


def stamp(entry_point: str) -> Dict:
    """The provenance fields of a results JSON written by the tool at `entry_point`."""
    return {"command": command_line(entry_point), "git_commit": git_commit(), "date": now(), "machine": machine()}
