"""
The cached embedder's faster frozen features (issue 43): the transformer in bfloat16 or with int8 linear layers
stays close to float32 (closer than a skipped layer or a wrong layer mixed would be), float32 stays what it
was, each precision keeps its own features directory, word-piece buckets and running only the layers mixed give
the same vectors, and a parser parses the same trees with cached and recomputed features. Over the tiny random
MPNet of tests/test_mpnet_config.py (16 wide, 4 layers), mixed as the shipped English config mixes
all-mpnet-base-v2 (its last four layers).

The tolerance checks the code (every layer run, the right layers mixed, the int8 copy used), not what the
precisions do to the real model: a random transformer has none of all-mpnet-base-v2's activation outliers
(what int8 does to the English model's scores: results/benchmarks/english_parse_speed_cpu_paths.json). A
predictor computes the features as its `features_precision` says: int8 by default, on either kind of CPU.
"""
import json

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Batch, DatasetReader, Vocabulary
from allennlp.models import Model
from allennlp.modules.token_embedders import PretrainedTransformerMismatchedEmbedder, TokenEmbedder

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.modules import cached_transformer_embedder
from seqgraph_allennlp.modules.cached_transformer_embedder import (
    CachedPretrainedTransformerMismatchedEmbedder,
    _ConcatenateLayers,
)
from seqgraph_allennlp.predictors.batching import without_gold

from tests.test_cached_transformer_embedder import tensors
from tests.test_model import CONFIGS, DATA

SHIPPED_LAYERS = [-4, -3, -2, -1]
# words of the tiny MPNet's vocabulary ("thes" is "the ##s"; "cat" is [UNK]), 2 to 24 words, 4 to 26 pieces
SENTENCES = [
    "it was the cat .".split(),
    "i thes you , and it ising to the ofs that was for you on a cat in the of .".split(),
    "you and i .".split(),
    "that is it , i was in a tos of the ofed and you ising for it on the".split(),
    "the cat is on a".split(),
    "it , i , you , that , and the a of to in is it . for on was that you i the".split(),
    "a the".split(),
]
# the largest difference from float32's vectors (any word, any of the four layers) allowed to bfloat16 and int8:
# on the tiny MPNet they differ by ~2e-4 and ~7e-4, one layer skipped or the wrong layer mixed by more than 1e-2
TOLERANCE = 3e-3


def embedder(model_name, **options) -> CachedPretrainedTransformerMismatchedEmbedder:
    return TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": model_name,
        "last_layer_only": False, "mixed_layers": SHIPPED_LAYERS, **options,
    }))


def word_vectors(module, batch) -> torch.Tensor:
    """Every word's cached vectors (the four layers side by side, before the trained mix), in batch order."""
    module.eval()
    module(**batch)
    keys = CachedPretrainedTransformerMismatchedEmbedder.sentence_keys(
        batch["token_ids"], batch["mask"], batch["offsets"], batch["wordpiece_mask"]
    )
    return torch.cat([module._cache[key] for key in keys])


def transformer_runs(module, monkeypatch) -> list:
    """The (sentences, pieces) shape of each batch the transformer runs on, from now on."""
    runs = []
    original = module._matched_embedder.forward
    monkeypatch.setattr(module._matched_embedder, "forward",
                        lambda token_ids, *args, **kwargs: runs.append(tuple(token_ids.shape)) or
                        original(token_ids, *args, **kwargs))
    return runs


def skip_layer(module, layer: int) -> None:
    """Makes the transformer's `layer` give back its input (the int8 copy, made from it later, skips it too)."""
    module._matched_embedder.transformer_model.encoder.layer[layer].forward = \
        lambda hidden_states, *args, **kwargs: (hidden_states,)


@pytest.fixture
def bfloat16_native(monkeypatch):
    # bfloat16 is used on a CPU that computes it natively only: said to be native here, so that the test also
    # runs (emulated, slower, the same rounding) where it is not
    monkeypatch.setattr(cached_transformer_embedder, "native_bfloat16", lambda device: device.type == "cpu")


def test_float32_features_are_todays(tiny_mpnet, tmp_path):
    batch = tensors(tiny_mpnet, SENTENCES)
    # what the embedder computed before the precision option: AllenNLP's embedder with the chosen layers side
    # by side, all sentences in one batch, every layer run
    before = PretrainedTransformerMismatchedEmbedder(tiny_mpnet, train_parameters=False, last_layer_only=False)
    before._matched_embedder._scalar_mix = _ConcatenateLayers(SHIPPED_LAYERS)
    before.eval()
    with torch.no_grad():
        expected = before(**batch)[batch["mask"]]
    for options in ({}, {"transformer_precision": "float32", "word_piece_buckets": False}):
        assert torch.equal(word_vectors(embedder(tiny_mpnet, **options), batch), expected)
    # and a float32 features directory keeps its name
    module = embedder(tiny_mpnet, cache_directory=str(tmp_path))
    module(**batch)
    settings = {"last_layer_only": False, "layers": SHIPPED_LAYERS, "sub_token_mode": "avg", "max_length": None}
    name = module.fingerprint(module._matched_embedder.transformer_model, settings)
    assert [path.name for path in tmp_path.iterdir()] == [name]


def largest_difference(reference, module, batch) -> float:
    return float((word_vectors(module, batch) - reference).abs().max())


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_reduced_precision_stays_closer_to_float32_than_a_wrong_layer(tiny_mpnet, precision, bfloat16_native):
    batch = tensors(tiny_mpnet, SENTENCES)
    reference = word_vectors(embedder(tiny_mpnet), batch)
    reduced = embedder(tiny_mpnet, transformer_precision=precision)
    assert reduced.precision_used(torch.device("cpu")) == precision
    difference = largest_difference(reference, reduced, batch)
    assert 0 < difference < TOLERANCE, difference  # it computed something else, and close

    # the same precision with one layer skipped, or with the third layer mixed in place of the fourth: outside
    wrong = {}
    for layer in range(4):
        skipping = embedder(tiny_mpnet, transformer_precision=precision)
        skip_layer(skipping, layer)
        wrong[f"layer {layer} skipped"] = largest_difference(reference, skipping, batch)
    shifted = embedder(tiny_mpnet, transformer_precision=precision, mixed_layers=[-4, -3, -2, -2])
    wrong["layer -2 for -1"] = largest_difference(reference, shifted, batch)
    assert min(wrong.values()) > 2 * TOLERANCE, wrong


def test_bfloat16_is_float32_where_it_is_not_native(tiny_mpnet, tmp_path, monkeypatch):
    monkeypatch.setattr(cached_transformer_embedder, "native_bfloat16", lambda device: False)
    batch = tensors(tiny_mpnet, SENTENCES)
    module = embedder(tiny_mpnet, transformer_precision="bfloat16", cache_directory=str(tmp_path))
    assert module.precision_used(torch.device("cpu")) == "float32"
    assert torch.equal(word_vectors(module, batch), word_vectors(embedder(tiny_mpnet), batch))
    # float32's features directory: it holds float32 vectors
    float32 = embedder(tiny_mpnet)
    assert module.feature_settings(torch.device("cpu")) == float32.feature_settings(torch.device("cpu"))


def test_each_precision_keeps_its_own_features_directory(tiny_mpnet, tmp_path, monkeypatch, bfloat16_native):
    batch = tensors(tiny_mpnet, SENTENCES[:3])
    directories = {}
    for precision in ("float32", "bfloat16", "int8"):
        module = embedder(tiny_mpnet, transformer_precision=precision, cache_directory=str(tmp_path))
        runs = transformer_runs(module, monkeypatch)
        module(**batch)
        assert runs == [(3, batch["token_ids"].size(1))], precision  # nothing read from another's files
        directories[precision] = module._directory
    assert len(set(directories.values())) == 3
    assert len(list(tmp_path.iterdir())) == 3
    # a later run in int8 reads int8's files
    later = embedder(tiny_mpnet, transformer_precision="int8", cache_directory=str(tmp_path))
    runs = transformer_runs(later, monkeypatch)
    later.eval()
    later(**batch)
    assert runs == [] and later._directory == directories["int8"]


def test_the_int8_copy_is_not_saved_and_follows_the_weights_loaded(tiny_mpnet):
    batch = tensors(tiny_mpnet, SENTENCES)
    module = embedder(tiny_mpnet, transformer_precision="int8")
    float32 = embedder(tiny_mpnet)
    first = word_vectors(module, batch)
    # the state is float32's (the digest of the float32 weights), without the int8 copy
    state = module.state_dict()
    assert state.keys() == float32.state_dict().keys()
    assert all(torch.equal(value, float32.state_dict()[name]) for name, value in state.items())
    assert isinstance(module._matched_embedder.transformer_model.encoder.layer[0].attention.attn.q,
                      torch.nn.Linear)

    # other weights loaded (an archive's, after __init__), here the second and third layers swapped: quantized
    # again from them
    other = embedder(tiny_mpnet, save_transformer_weights=True)
    swapped = {}
    for name, value in other.state_dict().items():
        for one, two in (("layer.1.", "layer.2."), ("layer.2.", "layer.1.")):
            if one in name:
                name = name.replace(one, two)
                break
        swapped[name] = value.clone()
    other.load_state_dict(swapped)
    module.load_state_dict(swapped)
    assert module._quantized_transformer is None
    module._cache.clear()
    again = word_vectors(module, batch)
    other_reference = word_vectors(other, batch)
    assert float((again - other_reference).abs().max()) < TOLERANCE
    assert float((again - first).abs().max()) > 2 * TOLERANCE


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_word_piece_buckets_give_each_sentence_its_vectors(tiny_mpnet, precision, monkeypatch):
    monkeypatch.setattr(cached_transformer_embedder, "BUCKET_MIN_SENTENCES", 1)
    batch = tensors(tiny_mpnet, SENTENCES)
    pieces = batch["wordpiece_mask"].sum(dim=-1)
    whole = embedder(tiny_mpnet, transformer_precision=precision)
    expected = word_vectors(whole, batch)
    bucketed = embedder(tiny_mpnet, transformer_precision=precision, word_piece_buckets=True)
    runs = transformer_runs(bucketed, monkeypatch)
    output = bucketed(**batch)
    vectors = word_vectors(bucketed, batch)
    # several narrower batches, each as wide as its longest sentence, every sentence once
    assert len(runs) > 1 and sum(size for size, _ in runs) == len(SENTENCES)
    assert max(width for _, width in runs) == batch["token_ids"].size(1)
    # the short sentences' bucket padded to its own longest (7 pieces here), not to a minimum
    short = pieces[pieces < 16]
    assert min(width for _, width in runs) == int(short.max()) < 16
    # the output as without buckets, zero on padding
    assert output.shape == (len(SENTENCES), batch["mask"].size(1), 16)
    assert output[~batch["mask"]].abs().sum() == 0
    # float rounding at most (other matrix kernels for other widths): int8 quantizes each token's input on its
    # own, so a sentence's vectors do not depend on its batch either
    assert float((vectors - expected).abs().max()) < 1e-5


def test_only_the_layers_up_to_the_highest_mixed_one_run(tiny_mpnet):
    batch = tensors(tiny_mpnet, SENTENCES)
    for precision in ("float32", "int8"):
        low = embedder(tiny_mpnet, transformer_precision=precision, mixed_layers=[0, -3])
        assert low._layers_run == 2
        # every layer run: the vectors before this saving
        every = embedder(tiny_mpnet, transformer_precision=precision, mixed_layers=[0, -3])
        every._layers_run = None
        expected = word_vectors(every, batch)
        vectors = word_vectors(low, batch)
        ran = []
        run_model = low._quantized_transformer if precision == "int8" else low._matched_embedder.transformer_model
        for number, layer in enumerate(run_model.encoder.layer):
            layer.register_forward_hook(lambda *args, number=number: ran.append(number))
        low._cache.clear()
        assert torch.equal(word_vectors(low, batch), vectors)
        assert torch.equal(vectors, expected)
        assert ran == [0, 1], precision
        # the transformer keeps its four layers
        assert len(low._matched_embedder.transformer_model.encoder.layer) == 4
        assert len(run_model.encoder.layer) == 4
    assert embedder(tiny_mpnet)._layers_run is None  # the shipped mix needs every layer


def parser(config, vocab, overrides) -> Model:
    params = Params.from_file(str(config), params_overrides=json.dumps(overrides))
    return Model.from_params(vocab=vocab, params=params["model"]).eval()


def heads(model, instances):
    batch = Batch(instances)
    batch.index_instances(model.vocab)
    with torch.no_grad():
        output = model(**batch.as_tensor_dict())
    return [row[mask].tolist() for row, mask in zip(output["heads"], output["mask"])]


def test_a_parser_parses_the_same_trees_with_cached_and_recomputed_features(tiny_mpnet, tmp_path, monkeypatch):
    monkeypatch.setenv("PRETRAINED_MPNET", tiny_mpnet)
    monkeypatch.setattr(cached_transformer_embedder, "BUCKET_MIN_SENTENCES", 1)
    config = CONFIGS / "coach_valid_mpnet.jsonnet"
    reader = DatasetReader.from_params(Params.from_file(str(config))["dataset_reader"])
    instances = list(reader.read(str(DATA)))
    vocab = Vocabulary.from_instances(instances)
    instances = [without_gold(instance) for instance in instances]
    features = "model.text_field_embedder.token_embedders.mpnet."
    torch.manual_seed(13)
    computing = parser(config, vocab, {features + "cache_directory": str(tmp_path)})
    expected = heads(computing, instances)  # computed, stored on disk

    # a parser with the same weights, reading the stored features (the transformer does not run)
    reading = parser(config, vocab, {features + "cache_directory": str(tmp_path)})
    reading.load_state_dict(computing.state_dict())
    runs = transformer_runs(reading.text_field_embedder._token_embedders["mpnet"], monkeypatch)
    assert heads(reading, instances) == expected
    assert runs == []

    # and recomputing them in other batches, in word-piece buckets
    recomputing = parser(config, vocab, {features + "word_piece_buckets": True})
    recomputing.load_state_dict(computing.state_dict())
    runs = transformer_runs(recomputing.text_field_embedder._token_embedders["mpnet"], monkeypatch)
    reordered = list(reversed(instances))
    recomputed = heads(recomputing, reordered[:2]) + heads(recomputing, reordered[2:])
    assert list(reversed(recomputed)) == expected
    assert len(runs) > 2


# in a new process on a forced CPU path: the predictor's automatic choice and what the transformer then runs in
AUTOMATIC_CHOICE = """
import json, sys, torch
from allennlp.common import Params
from allennlp.modules.token_embedders import TokenEmbedder
import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp.modules.precision import parsing_features_precision
from tests.test_cached_transformer_embedder import tensors
module = TokenEmbedder.from_params(Params({
    "type": "cached_pretrained_transformer_mismatched", "model_name": sys.argv[1], "last_layer_only": False,
    "mixed_layers": [-4, -3, -2, -1], "transformer_precision": "bfloat16"}))
module.eval()
chosen = parsing_features_precision("auto", module.configured_precision, torch.device("cpu"))
as_trained = module.precision_used(torch.device("cpu"))
module.set_transformer_precision(chosen)
module(**tensors(sys.argv[1], [["it", "was", "the", "cat", "."]]))
print(json.dumps({"chosen": chosen, "used": module.precision_used(torch.device("cpu")), "as_trained": as_trained,
                  "int8_copy": module._quantized_transformer is not None,
                  "capability": torch.backends.cpu.get_cpu_capability()}))
"""


@pytest.mark.parametrize("forced", [True, False])
def test_the_automatic_choice_is_int8_on_either_kind_of_cpu(tiny_mpnet, forced):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, **({"ONEDNN_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"} if forced else {})}
    completed = subprocess.run([sys.executable, "-c", AUTOMATIC_CHOICE, tiny_mpnet], capture_output=True, text=True,
                               env=env, cwd=Path(__file__).resolve().parents[1], timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result["chosen"] == result["used"] == "int8" and result["int8_copy"], result
    if forced:
        # bfloat16 as trained falls back to float32 there: the forcing took
        assert result["capability"] == "AVX2" and result["as_trained"] == "float32", result


def test_a_predictor_computes_the_features_as_features_precision_says(tiny_mpnet, monkeypatch):
    from seqgraph_allennlp.predictors.seqgraph_parser import PredictorArgumentError, SeqGraphParserPredictor

    monkeypatch.setenv("PRETRAINED_MPNET", tiny_mpnet)
    config = CONFIGS / "coach_valid_mpnet.jsonnet"
    reader = DatasetReader.from_params(Params.from_file(str(config))["dataset_reader"])
    instances = list(reader.read(str(DATA)))
    model = parser(config, Vocabulary.from_instances(instances), {
        "model.text_field_embedder.token_embedders.mpnet.transformer_precision": "bfloat16"})
    features = model.text_field_embedder._token_embedders["mpnet"]
    assert features.configured_precision == features.transformer_precision == "bfloat16"

    predictor = SeqGraphParserPredictor(model, reader)  # the default: "auto"
    assert features.transformer_precision == "int8"
    first = predictor.predict_batch_instance([without_gold(instance) for instance in instances])
    # a second predictor with the same choice keeps the vectors computed (Parser makes one per call)
    runs = transformer_runs(features, monkeypatch)
    again = SeqGraphParserPredictor(model, reader).predict_batch_instance(
        [without_gold(instance) for instance in instances])
    assert runs == [] and [output["predicted_heads"] for output in again] == \
        [output["predicted_heads"] for output in first]

    SeqGraphParserPredictor(model, reader, features_precision="as_trained")
    assert features.transformer_precision == "bfloat16" and features._cache == {}
    SeqGraphParserPredictor(model, reader, features_precision="float32")
    assert features.transformer_precision == "float32"
    with pytest.raises(PredictorArgumentError, match="features_precision must be one of .*got 'fp16'"):
        SeqGraphParserPredictor(model, reader, features_precision="fp16")
    # the encoder's LSTM layers: int8 when asked, as trained when asked, refused otherwise
    SeqGraphParserPredictor(model, reader, encoder_precision="int8")
    assert model.encoder._int8_inference
    SeqGraphParserPredictor(model, reader, encoder_precision="as_trained")
    assert not model.encoder._int8_inference
    with pytest.raises(PredictorArgumentError, match="encoder_precision must be one of .*got 'int4'"):
        SeqGraphParserPredictor(model, reader, encoder_precision="int4")
