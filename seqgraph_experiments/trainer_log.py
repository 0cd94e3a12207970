"""
What the tools read from the log that `allennlp train` writes into its serialization directory (out.log,
out_worker*.log): the trainer's epoch durations and when its training and validation passes began.
"""
import datetime
import re
from pathlib import Path
from typing import List, Optional

EPOCH_DURATION = re.compile(r"Epoch duration: (\d+):(\d+):([\d.]+)")
# the trainer's first line of each pass, e.g. "2026-11-23 21:40:02,123 - INFO - ...gradient_descent_trainer - Training"
PASS_START = re.compile(
    r"^(\S+ \S+) - INFO - allennlp.training.gradient_descent_trainer - (Training|Validating)$", re.MULTILINE
)


def read_log(serialization_dir: Path) -> str:
    return "".join(log.read_text(errors="replace") for log in sorted(serialization_dir.glob("out*.log")))


def epoch_durations(log: str) -> List[float]:
    """The seconds of every epoch (training pass and validation), in order."""
    return [int(hours) * 3600 + int(minutes) * 60 + float(seconds)
            for hours, minutes, seconds in EPOCH_DURATION.findall(log)]


def epoch_seconds(serialization_dir: Path) -> List[float]:
    return epoch_durations(read_log(serialization_dir))


def training_pass_seconds(log: str) -> Optional[float]:
    """The last epoch's training pass alone: from its start to the start of its validation."""
    starts = {kind: datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f")
              for stamp, kind in PASS_START.findall(log)}
    if len(starts) != 2:
        return None
    return (starts["Validating"] - starts["Training"]).total_seconds()
