"""
The rows of an experiment, as `scripts/run_experiments.py` takes them: `CONFIG` (a file
training_config/CONFIG.jsonnet) or `NAME=CONFIG[VAR=value,...]@OVERRIDES`, the bracket (optional) giving the
jsonnet external variables a config reads and OVERRIDES (optional) a JSON object of AllenNLP dotted override
keys; named presets of rows (the paper's Table 3); and the row argument that reproduces a recorded result.
"""
import json
import re
import sys
from pathlib import Path
from typing import Dict, Optional, Tuple

from seqgraph_experiments import ROOT


def parse_row(spec: str) -> Tuple[str, str, Dict, Dict[str, str]]:
    """`NAME=CONFIG[VAR=value,...]@{overrides}` -> (name, config, overrides, jsonnet external variables)."""
    head, _, overrides_text = spec.partition("@")
    match = re.fullmatch(r"(?:([\w.-]+)=)?([\w.-]+)(?:\[([^\]]*)\])?", head.strip())
    if not match:
        sys.exit(f"row {spec!r}: not CONFIG or NAME=CONFIG[VAR=value,...]@{{dotted overrides}}")
    name, config, assignments = match.groups()
    name = name or config
    ext_vars: Dict[str, str] = {}
    for assignment in filter(None, (assignments or "").split(",")):
        variable, equals, value = assignment.partition("=")
        if not equals or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", variable.strip()):
            sys.exit(f"row {spec!r}: {assignment!r} is not VAR=value")
        ext_vars[variable.strip()] = value.strip()
    try:
        overrides = json.loads(overrides_text) if overrides_text else {}
    except json.JSONDecodeError as error:
        sys.exit(f"row {spec!r}: the overrides after @ are not a JSON object ({error})")
    if not isinstance(overrides, dict):
        sys.exit(f"row {spec!r}: the overrides after @ are not a JSON object")
    for key, value in overrides.items():
        if isinstance(value, dict):
            sys.exit(
                f"row {spec!r}: override {key!r} is a nested dictionary, which replaces the whole section "
                f"in AllenNLP 2.x; use dotted keys such as \"{key}.{next(iter(value), 'field')}\""
            )
    if not (ROOT / "training_config" / f"{config}.jsonnet").exists():
        sys.exit(f"row {spec!r}: no training_config/{config}.jsonnet")
    return name, config, overrides, ext_vars


# AllenNLP's own seeds (`prepare_environment`), which every run without a seed override trains with: seed 0.
# Seed K > 0 shifts all three by K, so that a row's runs differ only in their random numbers.
DEFAULT_SEEDS = {"random_seed": 13370, "numpy_seed": 1337, "pytorch_seed": 133}


def seed_overrides(seed: int) -> Dict[str, int]:
    """The dotted overrides of seed `seed`; none for seed 0, AllenNLP's defaults (the runs made before seeds)."""
    if seed < 0:
        sys.exit(f"seed {seed}: seeds are 0 (AllenNLP's defaults) or positive")
    return {key: value + seed for key, value in DEFAULT_SEEDS.items()} if seed else {}


def feature_cache_off(used: Dict) -> Dict[str, Optional[str]]:
    """
    Dotted overrides that turn off the `cache_directory` of each token embedder in a model's config that has
    one (the mpnet rows train with `experiments/features`): the timed parse then computes the frozen
    features, as a user's `allennlp predict` does, instead of reading those that training or an earlier
    evaluation left on disk. Empty for a model without such an embedder.
    """
    embedders = used.get("model", {}).get("text_field_embedder", {}).get("token_embedders", {})
    return {f"model.text_field_embedder.token_embedders.{name}.cache_directory": None
            for name, embedder in embedders.items()
            if isinstance(embedder, dict) and embedder.get("cache_directory") is not None}


def run_name(name: str, seed: int) -> str:
    """The run of row `name` with `seed`: its results file and serialization directory (`name.seedK`, seed 0 bare)."""
    return f"{name}.seed{seed}" if seed else name


def row_spec(result: Dict) -> str:
    """The row argument that reproduces a result: `CONFIG` or `NAME=CONFIG@{overrides}`."""
    config = Path(result["config"]).stem
    ext_vars = result.get("ext_vars") or {}
    if result["row"] == config and not result["overrides"] and not ext_vars:
        return config
    bracket = f"[{','.join(f'{key}={value}' for key, value in ext_vars.items())}]" if ext_vars else ""
    overrides = f"@{json.dumps(result['overrides'])}" if result["overrides"] else ""
    return f"{result['row']}={config}{bracket}{overrides}"


# The paper's Table 3 (oracle x roll-in, German there, Welsh-CCG here): every row uses the shipped
# valid-edge policy and no head-selection loss, so only the oracle and the roll-in change between rows.
TABLE3 = ["linearized"] + [
    f"{oracle}_x_{roll_in}=oracle_rollin[ORACLE={oracle},ROLL_IN={roll_in}]"
    for oracle, roll_in in [
        ("uniform", "uniform"), ("coaching", "uniform"),
        ("uniform", "coaching"), ("coaching", "coaching"), ("annealed_coaching", "coaching"),
        ("uniform", "valid_policy"), ("coaching", "valid_policy"), ("annealed_coaching", "valid_policy"),
    ]
]
PRESETS = {"table3": TABLE3}
