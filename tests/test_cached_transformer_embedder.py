"""
The cached frozen-transformer embedder gives what recomputing gives, and stops running the transformer for
sentences it has seen. A tiny random BERT written to a temporary directory stands in for MiniLM (no network).
"""
import logging

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Batch, Instance, Token, Vocabulary
from allennlp.data.fields import TextField
from allennlp.data.token_indexers import PretrainedTransformerMismatchedIndexer
from allennlp.modules.token_embedders import PretrainedTransformerMismatchedEmbedder, TokenEmbedder

import seqgraph_allennlp  # noqa: F401

SENTENCES = [
    "the cat sat on the mat".split(),
    "dogs bark".split(),
    "the dogs sat on cats".split(),
    "a mat".split(),
]


@pytest.fixture(scope="module")
def tiny_bert(tiny_transformer):
    from transformers import BertConfig, BertModel, BertTokenizer

    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "dog", "##s",
              "bark", "a"]
    return tiny_transformer("tiny_bert", pieces, BertTokenizer, BertConfig, BertModel, hidden_size=16,
                            num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                            max_position_embeddings=64)


def tensors(tiny_bert, sentences):
    indexer = PretrainedTransformerMismatchedIndexer(tiny_bert)
    instances = [Instance({"words": TextField([Token(word) for word in words], {"tokens": indexer})})
                 for words in sentences]
    batch = Batch(instances)
    batch.index_instances(Vocabulary())
    return batch.as_tensor_dict()["words"]["tokens"]


def test_cached_vectors_equal_recomputed_ones_and_skip_the_transformer(tiny_bert, monkeypatch):
    plain = PretrainedTransformerMismatchedEmbedder(tiny_bert, train_parameters=False)
    cached = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "train_parameters": False,
    }))
    plain.eval()
    cached.train()  # as in training: the cached transformer stays in eval mode (no dropout)
    first = tensors(tiny_bert, SENTENCES[:3])
    words = first["mask"]
    # AllenNLP's embedder leaves vectors on padded words, the cached one zeros
    torch.testing.assert_close(cached(**first)[words], plain(**first)[words], rtol=0, atol=1e-5)
    assert cached._cached_words == 6 + 2 + 5

    # a batch of sentences seen in another batch (padded differently) and one new sentence
    runs = []
    original = cached._matched_embedder.forward
    monkeypatch.setattr(cached._matched_embedder, "forward",
                        lambda token_ids, *args, **kwargs: runs.append(token_ids.size(0)) or
                        original(token_ids, *args, **kwargs))
    second = tensors(tiny_bert, [SENTENCES[3], SENTENCES[1], SENTENCES[0]])
    output = cached(**second)
    assert runs == [1]  # only the new sentence went through the transformer
    expected = plain(**second)
    torch.testing.assert_close(output[second["mask"]], expected[second["mask"]], rtol=0, atol=1e-5)
    assert output[1, 2:].abs().sum() == 0 and output.abs().sum() > 0  # padding stays zero

    cached(**second)
    assert runs == [1]  # everything from memory now


def test_cache_stops_growing_at_its_limit(tiny_bert):
    cached = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "max_cached_words": 8,
    }))
    batch = tensors(tiny_bert, SENTENCES[:3])
    first = cached(**batch)
    # 6 words fit, then 2 more; the third sentence (5 words) would pass the limit
    assert cached._cached_words == 8 and len(cached._cache) == 2
    torch.testing.assert_close(cached(**batch), first)


def test_a_trained_transformer_cannot_be_cached(tiny_bert):
    with pytest.raises(ConfigurationError, match="frozen transformer"):
        TokenEmbedder.from_params(Params({
            "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "train_parameters": True,
        }))


@pytest.mark.parametrize("option", [{"mixed_layers": [-1]}, {"last_layer_only": False, "mixed_layers": [2]},
                                    {"last_layer_only": False, "mixed_layers": []}])
def test_mixed_layers_need_a_mix_of_existing_layers(tiny_bert, option):
    with pytest.raises(ConfigurationError, match="mixed_layers"):
        TokenEmbedder.from_params(Params({
            "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, **option,
        }))


def test_a_mix_of_layers_is_trained_on_top_of_the_cache(tiny_bert, monkeypatch):
    # AllenNLP's embedder mixes every layer before pooling pieces to words; the cached one pools each layer,
    # caches, then mixes: the same vectors for the same mix weights
    plain = PretrainedTransformerMismatchedEmbedder(tiny_bert, train_parameters=False, last_layer_only=False)
    cached = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "last_layer_only": False,
    }))
    mix = plain._matched_embedder._scalar_mix
    with torch.no_grad():
        for weight, value in zip(mix.scalar_parameters, (0.3, -1.2)):
            weight.fill_(value)
        mix.gamma.fill_(1.7)
        cached._layer_mix.load_state_dict(mix.state_dict())
    plain.eval()
    cached.train()
    batch = tensors(tiny_bert, SENTENCES[:3])
    words = batch["mask"]
    output = cached(**batch)
    assert output.shape == (3, 6, 16)
    torch.testing.assert_close(output[words], plain(**batch)[words], rtol=0, atol=1e-5)
    assert output[1, 2:].abs().sum() == 0  # padding stays zero

    # from the second time on: no transformer, and the mix weights still get their gradient
    runs = []
    original = cached._matched_embedder.forward
    monkeypatch.setattr(cached._matched_embedder, "forward",
                        lambda *args, **kwargs: runs.append(1) or original(*args, **kwargs))
    again = cached(**batch)
    assert runs == []
    torch.testing.assert_close(again, output)
    again.sum().backward()
    assert all(weight.grad is not None and weight.grad.abs() > 0 for weight in cached._layer_mix.scalar_parameters)
    assert cached._layer_mix.gamma.grad.abs() > 0
    assert not any(parameter.requires_grad for parameter in cached._matched_embedder.parameters())


def test_mixing_the_last_layer_alone_gives_the_last_layer(tiny_bert):
    last = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert,
    }))
    mixed = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "last_layer_only": False,
        "mixed_layers": [-1],
    }))
    batch = tensors(tiny_bert, SENTENCES)
    torch.testing.assert_close(mixed(**batch), last(**batch), rtol=0, atol=1e-6)


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append((record.levelno, record.getMessage()))


def test_a_transformer_cut_to_its_first_layers_gives_their_vectors_without_a_warning(tiny_bert, caplog):
    from allennlp.common import cached_transformers

    # AllenNLP's cache knows a transformer by its name: the whole one it holds must not stand in for the cut one
    cached_transformers._model_cache.clear()
    held = cached_transformers.get(tiny_bert, False)
    # Hugging Face's loggers do not propagate to the root logger that caplog watches
    hugging_face = Records()
    logging.getLogger("transformers").addHandler(hugging_face)
    try:
        with caplog.at_level(logging.INFO, logger="seqgraph_allennlp"):
            cut = TokenEmbedder.from_params(Params({
                "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert,
                "last_layer_only": False, "mixed_layers": [-1], "transformer_kwargs": {"num_hidden_layers": 1},
            }))
    finally:
        logging.getLogger("transformers").removeHandler(hugging_face)
    first = TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, "last_layer_only": False,
        "mixed_layers": [0],
    }))
    assert len(cut._matched_embedder.transformer_model.encoder.layer) == 1
    assert list(cached_transformers._model_cache.values()) == [held]
    cached_transformers._model_cache.clear()
    batch = tensors(tiny_bert, SENTENCES)
    torch.testing.assert_close(cut(**batch), first(**batch), rtol=0, atol=1e-6)
    assert [message for level, message in hugging_face.messages if level >= logging.WARNING] == []
    assert "the transformer runs its first 1 layers" in caplog.text


def unused_weights_warning(names) -> logging.LogRecord:
    message = f"Some weights of the model checkpoint at m were not used when initializing BertModel: {names}\n- ..."
    return logging.LogRecord("transformers.modeling_utils", logging.WARNING, __file__, 1, message, None, None)


@pytest.mark.parametrize("names, dropped", [
    (["encoder.layer.1.output.dense.bias", "encoder.layer.2.attention.self.key.weight"], True),
    # a layer that the model keeps, or a weight outside the layers: something else went wrong
    (["encoder.layer.0.output.dense.bias", "encoder.layer.2.output.dense.bias"], False),
    (["encoder.layer.3.output.dense.bias", "cls.predictions.bias"], False),
])
def test_only_the_warning_about_the_layers_left_out_is_dropped(names, dropped):
    from seqgraph_allennlp.modules.cached_transformer_embedder import _UnusedLayersOnly

    assert _UnusedLayersOnly(num_layers=1).filter(unused_weights_warning(names)) is not dropped
    other = logging.LogRecord("transformers.modeling_utils", logging.WARNING, __file__, 1, "Some weights of BertModel "
                              "were not initialized from the model checkpoint", None, None)
    assert _UnusedLayersOnly(num_layers=1).filter(other)


def count_transformer_runs(embedder, monkeypatch) -> list:
    runs = []
    original = embedder._matched_embedder.forward
    monkeypatch.setattr(embedder._matched_embedder, "forward",
                        lambda *args, **kwargs: runs.append(args[0].size(0)) or original(*args, **kwargs))
    return runs


def cached_embedder(tiny_bert, **options):
    return TokenEmbedder.from_params(Params({
        "type": "cached_pretrained_transformer_mismatched", "model_name": tiny_bert, **options,
    }))


def test_a_cache_directory_serves_a_later_run_without_the_transformer(tiny_bert, tmp_path, monkeypatch):
    options = {"last_layer_only": False, "mixed_layers": [-2, -1], "cache_directory": str(tmp_path / "features")}
    first = cached_embedder(tiny_bert, **options)
    first.eval()
    batch = tensors(tiny_bert, SENTENCES[:3])
    words = batch["mask"]
    expected = first(**batch)
    stored = list((tmp_path / "features").glob("*/*/*.pt"))
    assert len(stored) == 3
    assert not list((tmp_path / "features").rglob("*.partial"))

    # a new model object (a resumed training), sentences in another batch and padding, one of them new
    later = cached_embedder(tiny_bert, **options)
    later.eval()
    later._layer_mix.load_state_dict(first._layer_mix.state_dict())
    runs = count_transformer_runs(later, monkeypatch)
    again = tensors(tiny_bert, [SENTENCES[1], SENTENCES[0], SENTENCES[3]])
    output = later(**again)
    assert runs == [1]  # only "a mat" went through the transformer
    torch.testing.assert_close(output[0, :2], expected[1, :2], rtol=0, atol=0)
    torch.testing.assert_close(output[1][again["mask"][1]], expected[0][words[0]], rtol=0, atol=0)
    assert len(list((tmp_path / "features").glob("*/*/*.pt"))) == 4


def test_other_weights_or_layers_do_not_share_a_cache_directory(tiny_bert, tmp_path, monkeypatch):
    directory = str(tmp_path / "features")
    batch = tensors(tiny_bert, SENTENCES[:2])
    cached_embedder(tiny_bert, cache_directory=directory)(**batch)

    other_layers = cached_embedder(tiny_bert, cache_directory=directory, last_layer_only=False, mixed_layers=[0])
    runs = count_transformer_runs(other_layers, monkeypatch)
    other_layers(**batch)
    assert runs == [2]

    other_weights = cached_embedder(tiny_bert, cache_directory=directory)
    with torch.no_grad():
        next(other_weights._matched_embedder.transformer_model.parameters()).add_(1.0)
    runs = count_transformer_runs(other_weights, monkeypatch)
    other_weights(**batch)
    assert runs == [2]
    assert len(list((tmp_path / "features").iterdir())) == 3


def test_a_damaged_stored_file_is_computed_again(tiny_bert, tmp_path, monkeypatch):
    directory = tmp_path / "features"
    batch = tensors(tiny_bert, SENTENCES[:1])
    expected = cached_embedder(tiny_bert, cache_directory=str(directory))(**batch)
    (stored,) = directory.glob("*/*/*.pt")
    stored.write_bytes(stored.read_bytes()[:20])
    later = cached_embedder(tiny_bert, cache_directory=str(directory))
    runs = count_transformer_runs(later, monkeypatch)
    torch.testing.assert_close(later(**batch), expected, rtol=0, atol=1e-6)
    assert runs == [1]
    assert torch.load(stored, weights_only=True).shape == (6, 16)


def test_a_cache_directory_that_cannot_be_written_is_given_up_with_a_warning(tiny_bert, tmp_path, caplog):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    cached = cached_embedder(tiny_bert, cache_directory=str(blocker / "features"))
    batch = tensors(tiny_bert, SENTENCES[:2])
    plain = cached_embedder(tiny_bert)
    torch.testing.assert_close(cached(**batch), plain(**batch), rtol=0, atol=1e-6)
    assert "cannot be used" in caplog.text and str(blocker / "features") in caplog.text
    assert cached._cached_words == 6 + 2  # still cached in memory


def transformer_keys(state):
    return [key for key in state if key.startswith("_matched_embedder.transformer_model.")]


def test_the_saved_state_holds_a_digest_of_the_frozen_weights_not_the_weights(tiny_bert):
    options = {"last_layer_only": False, "mixed_layers": [-2, -1]}
    trained = cached_embedder(tiny_bert, **options)
    with torch.no_grad():
        trained._layer_mix.scalar_parameters[0].fill_(3.0)
    state = trained.state_dict()
    assert transformer_keys(state) == [] and state["transformer_digest"].shape == (32,)
    assert set(state) == {"transformer_digest", "_layer_mix.gamma", "_layer_mix.scalar_parameters.0",
                          "_layer_mix.scalar_parameters.1"}
    # loads strictly onto the same weights, read from model_name: nothing missing, the trained mix restored
    loaded = cached_embedder(tiny_bert, **options)
    loaded.load_state_dict(state, strict=True)
    assert float(loaded._layer_mix.scalar_parameters[0]) == 3.0
    batch = tensors(tiny_bert, SENTENCES[:2])
    trained.eval(), loaded.eval()
    torch.testing.assert_close(loaded(**batch), trained(**batch), rtol=0, atol=0)
    # saved with its weights (as before the option), a state still carries them and they are loaded
    with_weights = cached_embedder(tiny_bert, save_transformer_weights=True, **options)
    with torch.no_grad():
        next(with_weights._matched_embedder.transformer_model.parameters()).add_(1.0)
    full_state = with_weights.state_dict()
    assert "transformer_digest" not in full_state and len(transformer_keys(full_state)) > 10
    onto = cached_embedder(tiny_bert, **options)
    onto.load_state_dict(full_state, strict=True)
    torch.testing.assert_close(next(onto._matched_embedder.transformer_model.parameters()),
                               next(with_weights._matched_embedder.transformer_model.parameters()))


@pytest.mark.parametrize("which", [0, -1])
def test_a_state_without_weights_refuses_other_weights(tiny_bert, which):
    state = cached_embedder(tiny_bert).state_dict()
    other = cached_embedder(tiny_bert)
    # the first tensor's first value, the last tensor's first value: both in the digest's sample
    name, parameter = sorted(other._matched_embedder.transformer_model.state_dict().items())[which]
    with torch.no_grad():
        parameter.view(-1)[0] += 0.5
    with pytest.raises(ConfigurationError, match="not the one this model was trained with"):
        other.load_state_dict(state)


def test_a_transformer_loaded_for_the_embedder_is_its_own_and_not_kept_in_allennlps_cache(tiny_bert):
    from allennlp.common import cached_transformers

    cached_transformers._model_cache.clear()
    first = cached_embedder(tiny_bert)
    second = cached_embedder(tiny_bert)
    assert cached_transformers._model_cache == {}
    one, other = first._matched_embedder.transformer_model, second._matched_embedder.transformer_model
    assert one is not other
    for (name, parameter), (_, again) in zip(one.named_parameters(), other.named_parameters()):
        assert torch.equal(parameter, again), name
    # one that AllenNLP's cache already holds is copied, as AllenNLP does, and stays there
    held = cached_transformers.get(tiny_bert, False)
    with torch.no_grad():
        held.pooler.dense.bias.fill_(0.5)  # not read from the model directory again
    third = cached_embedder(tiny_bert, transformer_kwargs={"local_files_only": True})
    assert third._matched_embedder.transformer_model is not held
    assert torch.equal(third._matched_embedder.transformer_model.pooler.dense.bias, held.pooler.dense.bias)
    assert list(cached_transformers._model_cache.values()) == [held]
    cached_transformers._model_cache.clear()


def allennlps_average(pieces, offsets):
    # what PretrainedTransformerMismatchedEmbedder.forward does with sub_token_mode "avg"
    from allennlp.nn import util

    spans, span_mask = util.batched_span_select(pieces.contiguous(), offsets)
    spans = spans * span_mask.unsqueeze(-1)
    return spans.sum(2) / torch.clamp_min(span_mask.unsqueeze(-1).sum(2), 1)


def test_the_pieces_average_to_what_allennlp_gives_and_stays_float32_under_autocast():
    from seqgraph_allennlp.modules.cached_transformer_embedder import average_pieces

    generator = torch.Generator().manual_seed(0)
    # words of 1 to 9 pieces after a first piece (<s>), sentences of 5 and 3 words (the second padded)
    lengths = torch.randint(1, 10, (2, 5), generator=generator)
    ends = lengths.cumsum(dim=1)
    offsets = torch.stack([ends - lengths + 1, ends], dim=-1)
    offsets[1, 3:] = 0
    # a word without word pieces (AllenNLP's indexer gives it (-1, -1)): zeros
    offsets[0, 2] = -1
    pieces = torch.randn(2, int(ends.max()) + 2, 12, generator=generator)
    expected = allennlps_average(pieces, offsets)
    torch.testing.assert_close(average_pieces(pieces, offsets), expected, rtol=0, atol=1e-6)
    assert not average_pieces(pieces, offsets)[0, 2].any()
    # the second word of the first sentence by hand
    start, end = offsets[0, 1].tolist()
    torch.testing.assert_close(average_pieces(pieces, offsets)[0, 1], pieces[0, start:end + 1].mean(dim=0))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        averaged = average_pieces(pieces, offsets)
    assert averaged.dtype == torch.float32
    torch.testing.assert_close(averaged, expected, rtol=0, atol=1e-6)
