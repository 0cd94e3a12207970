"""
Three small trained archives and their predictions, committed before `SeqGraphParser` was split into parts
(issue 73), are reproduced: the CoNLL-U files byte for byte (trees, relations, UPOS, the enhanced graph in
DEPS), the JSON records field for field (the generation order, extra edges and DEPS exactly, the policy's
probabilities to float32 rounding: their last bits change with the number of threads). Whatever moves inside
the model, a user's archive parses as it did, computed as trained (the predictor's int8 defaults are measured,
not reproduced: tests/test_fused_bilstm.py, tests/test_transformer_precision.py). fixtures/trained/README.md says how they were made.
"""
import json
from pathlib import Path
from typing import Any

import pytest
from allennlp.common.util import lazy_groups_of
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.modules import fused_bilstm, precision

ROOT = Path(__file__).resolve().parents[1]
TRAINED = ROOT / "fixtures" / "trained"
CONLLU = ROOT / "fixtures" / "conllu"
# as `allennlp predict --use-dataset-reader --batch-size 8` made the expected files
BATCH_SIZE = 8
ENHANCED_CONLLU = {"output_format": "conllu", "overwrite_upos": True}

# (archive, input file, predictor arguments, expected output), as fixtures/trained/README.md lists them
PREDICTIONS = [
    ("coach_valid_enhanced", "en_small", ENHANCED_CONLLU, "coach_valid_enhanced.en_small.conllu"),
    ("coach_valid_enhanced", "en_heldout", ENHANCED_CONLLU, "coach_valid_enhanced.en_heldout.conllu"),
    ("coach_valid_enhanced", "enhanced", ENHANCED_CONLLU, "coach_valid_enhanced.enhanced.conllu"),
    ("coach_valid_enhanced", "en_small", {"stop_bias": -2.0, "lexical_labels": "predicted", "drop_ref_tree_edges": False},
     "coach_valid_enhanced.en_small.stop_bias.jsonl"),
    ("coach_valid", "en_heldout", ENHANCED_CONLLU, "coach_valid.en_heldout.conllu"),
    ("coach_valid", "en_heldout", {"tau": 0.3}, "coach_valid.en_heldout.tau.jsonl"),
    ("one_step_mst", "en_heldout", {"output_format": "conllu"}, "one_step_mst.en_heldout.conllu"),
]


@pytest.fixture(scope="module", autouse=True)
def float32_everywhere():
    """
    The expected files came from a CPU without native bfloat16, where the archives' bfloat16 options run in
    float32; on a CPU with it they would take the bfloat16 path, and some argmaxes turn. The comparison is of
    the code, not of the CPU: float32 on both.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(precision, "native_bfloat16", lambda device: False)
        patch.setattr(fused_bilstm, "native_bfloat16", lambda device: False)
        yield


@pytest.fixture(scope="module")
def archives():
    return {name: load_archive(str(TRAINED / f"{name}.tar.gz")) for name in sorted({row[0] for row in PREDICTIONS})}


def predicted(archive, input_name: str, predictor_args) -> str:
    """What `allennlp predict ARCHIVE INPUT --use-dataset-reader --batch-size 8` writes, in process."""
    # as trained: the expected files predate the predictor's int8 defaults (`features_precision`,
    # `encoder_precision`), which change the last bits of a parse where bfloat16 is not native
    predictor = Predictor.from_archive(archive, "seqgraph_parser", extra_args={
        **predictor_args, "features_precision": "as_trained", "encoder_precision": "as_trained"})
    lines = []
    for batch in lazy_groups_of(predictor._dataset_reader.read(str(CONLLU / f"{input_name}.conllu")), BATCH_SIZE):
        outputs = [predictor.predict_instance(batch[0])] if len(batch) == 1 else predictor.predict_batch_instance(batch)
        lines.extend(predictor.dump_line(output) for output in outputs)
    return "".join(lines)


@pytest.mark.parametrize("archive_name,input_name,predictor_args,expected", PREDICTIONS,
                         ids=[row[3] for row in PREDICTIONS])
def test_a_committed_archive_predicts_what_it_did(archives, archive_name, input_name, predictor_args, expected):
    actual = predicted(archives[archive_name], input_name, predictor_args)
    if expected.endswith(".conllu"):
        assert actual == (TRAINED / expected).read_text()
    else:
        records = [json.loads(line) for line in actual.splitlines()]
        expected_records = [json.loads(line) for line in (TRAINED / expected).read_text().splitlines()]
        assert_same_record(records, expected_records)


def assert_same_record(actual: Any, expected: Any, where: str = "") -> None:
    """Equal JSON values, keys in the same order, floats to a relative 1e-5."""
    assert type(actual) is type(expected), where
    if isinstance(expected, dict):
        assert list(actual) == list(expected), where
        for key in expected:
            assert_same_record(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), where
        for index, (item, expected_item) in enumerate(zip(actual, expected)):
            assert_same_record(item, expected_item, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, rel=1e-5, abs=1e-7), where
    else:
        assert actual == expected, where


def test_the_expected_files_show_what_they_should(archives):
    # the fixtures exercise what they are meant to: the graph phase's extra edges, with and without a stop
    # bias, the tagger's UPOS, the MST decoder
    enhanced = [json.loads(line) for line in (TRAINED / "coach_valid_enhanced.en_small.stop_bias.jsonl").open()]
    assert sum(len(sentence["extra_edges"]) for sentence in enhanced) >= 10
    assert all("predicted_upos" in sentence and "predicted_deps" in sentence for sentence in enhanced)
    default_graph = (TRAINED / "coach_valid_enhanced.en_small.conllu").read_text()
    assert any("|" in line.split("\t")[8] for line in default_graph.splitlines() if line and not line.startswith("#"))
    assert archives["one_step_mst"].model.decoding.decoder == "mst"
