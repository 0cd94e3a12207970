"""
Which layers of a frozen transformer hold the most syntax: a small biaffine head-selection probe trained on the
word vectors of each layer alone, and of windows of four consecutive layers mixed by trained weights (the mpnet
configs mix the last four, `mixed_layers: [-4, -3, -2, -1]`), scored by dev UAS. A probe, not a parser: no
encoder, no tree constraint (each word takes its best-scoring head), a few hundred sentences; it ranks layers
for the configs' choice (issues 41 and 43: a window lower in the network is also a shorter transformer to run),
it does not predict a parser's score.

    .venv/bin/python scripts/layer_probe.py [--train-sentences 1000] [--dev-sentences 500]

Word vectors as the configs' embedder makes them: the word pieces of each word (the transformer's tokenizer on
the words, `is_split_into_words`) averaged, in float32. The first `--train-sentences` of EWT train (at most 128
words each) train each probe (`--epochs` passes, Adam, batches of 32, the same seed for every probe) and the first
`--dev-sentences` of EWT dev score it (every word, punctuation included). Writes results/mpnet_layer_probe.json.
"""
import argparse
import statistics
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import torch

from seqgraph_allennlp.common.conllu import read_sentences
from seqgraph_assets.locations import default_mpnet_directory
from seqgraph_experiments import RESULTS, ROOT
from seqgraph_experiments.arguments import refuse_missing_files
from seqgraph_experiments.provenance import stamp
from seqgraph_experiments.results import write_json

OUT = RESULTS / "mpnet_layer_probe.json"
EWT = ROOT / "data" / "UD_English-EWT"
MAX_WORDS = 128


def read_trees(path: Path, count: int) -> List[Tuple[List[str], List[int]]]:
    """The first `count` sentences of `path` of at most MAX_WORDS words: words and heads (0 the root)."""
    trees = []
    for sentence in read_sentences(str(path)):
        if len(sentence) > MAX_WORDS or not sentence.has_heads:
            continue
        trees.append((sentence.forms, [int(head) for head in sentence.heads]))
        if len(trees) == count:
            break
    return trees


@torch.no_grad()
def word_layers(model, tokenizer, sentences: Sequence[List[str]], batch_size: int = 32) -> List[torch.Tensor]:
    """Each sentence's `(num_layers + 1, num_words, dim)` word vectors: its word pieces averaged, every layer."""
    vectors = []
    for start in range(0, len(sentences), batch_size):
        batch = list(sentences[start:start + batch_size])
        encoded = tokenizer(batch, is_split_into_words=True, return_tensors="pt", padding=True, truncation=True,
                            max_length=512)
        # shape (num_layers + 1, batch_size, num_pieces, dim)
        hidden = torch.stack(model(**{key: encoded[key] for key in ("input_ids", "attention_mask")},
                                   output_hidden_states=True).hidden_states)
        for row, words in enumerate(batch):
            pieces = encoded.word_ids(row)
            index = torch.tensor([-1 if word is None else word for word in pieces])
            # shape (num_words, num_pieces): which pieces each word averages
            owner = (index.unsqueeze(0) == torch.arange(len(words)).unsqueeze(1)).float()
            owner = owner / owner.sum(dim=1, keepdim=True)
            vectors.append(torch.einsum("wp,lpd->lwd", owner, hidden[:, row, : len(pieces)]))
    return vectors


class Probe(torch.nn.Module):
    """Head selection from a scalar mix of `num_layers` layers: biaffine scores over the words and a root vector."""

    def __init__(self, num_layers: int, dim: int, hidden: int = 256) -> None:
        super().__init__()
        self.mix = torch.nn.Parameter(torch.zeros(num_layers))
        self.root = torch.nn.Parameter(torch.zeros(dim))
        self.head = torch.nn.Linear(dim, hidden)
        self.dependent = torch.nn.Linear(dim, hidden)
        self.biaffine = torch.nn.Parameter(torch.zeros(hidden, hidden))
        self.head_bias = torch.nn.Linear(hidden, 1)

    def forward(self, layers: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
        """`layers` `(batch, num_layers, N, dim)` -> scores `(batch, N + 1 heads, N dependents)`, -inf masked."""
        mixed = torch.einsum("l,blnd->bnd", torch.softmax(self.mix, dim=0), layers)
        nodes = torch.cat([self.root.expand(mixed.size(0), 1, -1), mixed], dim=1)
        heads, dependents = torch.relu(self.head(nodes)), torch.relu(self.dependent(mixed))
        scores = heads @ self.biaffine @ dependents.transpose(1, 2) + self.head_bias(heads)
        node_mask = torch.cat([mask.new_ones(mask.size(0), 1), mask], dim=1)
        scores = scores.masked_fill(~node_mask.unsqueeze(2), float("-inf"))
        # no word heads itself: node i + 1 is word i
        size = mask.size(1)
        self_loop = torch.zeros(size + 1, size, dtype=torch.bool)
        self_loop[1:] = torch.eye(size, dtype=torch.bool)
        return scores.masked_fill(self_loop, float("-inf"))


def batches(vectors: List[torch.Tensor], heads: List[List[int]], layers: Sequence[int], order: List[int],
            size: int = 32):
    for start in range(0, len(order), size):
        chosen = order[start:start + size]
        longest = max(vectors[index].size(1) for index in chosen)
        dim = vectors[chosen[0]].size(2)
        inputs = torch.zeros(len(chosen), len(layers), longest, dim)
        gold = torch.full((len(chosen), longest), -100, dtype=torch.long)
        mask = torch.zeros(len(chosen), longest, dtype=torch.bool)
        for row, index in enumerate(chosen):
            length = vectors[index].size(1)
            inputs[row, :, :length] = vectors[index][list(layers)]
            gold[row, :length] = torch.tensor(heads[index])
            mask[row, :length] = True
        yield inputs, gold, mask


def train_and_score(train: Tuple[List[torch.Tensor], List[List[int]]], dev: Tuple[List[torch.Tensor], List[List[int]]],
                    layers: Sequence[int], epochs: int, seed: int) -> Dict:
    torch.manual_seed(seed)
    probe = Probe(len(layers), train[0][0].size(2))
    optimizer = torch.optim.Adam(probe.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = torch.randperm(len(train[0]), generator=generator).tolist()
        for inputs, gold, mask in batches(*train, layers, order):
            scores = probe(inputs, mask)
            loss = torch.nn.functional.cross_entropy(scores, gold, ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    correct = total = 0
    with torch.no_grad():
        for inputs, gold, mask in batches(*dev, layers, list(range(len(dev[0])))):
            predicted = probe(inputs, mask).argmax(dim=1)
            correct += int(((predicted == gold) & mask).sum())
            total += int(mask.sum())
    return {"layers": list(layers), "dev_UAS": 100 * correct / total,
            "mix_weights": [round(value, 4) for value in torch.softmax(probe.mix, dim=0).tolist()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(default_mpnet_directory()),
                        help="a Hugging Face model directory (default: all-mpnet-base-v2 of `make english`)")
    parser.add_argument("--train-sentences", type=int, default=1000)
    parser.add_argument("--dev-sentences", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0],
                        help="one probe per seed for every choice of layers; the JSON keeps each and their mean")
    parser.add_argument("--output", default=str(OUT))
    args = parser.parse_args()
    refuse_missing_files(parser, [str(Path(args.model) / "config.json")])
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model, local_files_only=True)
    model = AutoModel.from_pretrained(args.model, local_files_only=True).eval()
    started = time.perf_counter()
    data = {}
    for split, count in (("train", args.train_sentences), ("dev", args.dev_sentences)):
        trees = read_trees(EWT / f"en_ewt-ud-{split}.conllu", count)
        data[split] = (word_layers(model, tokenizer, [words for words, _ in trees]), [heads for _, heads in trees])
    features_seconds = time.perf_counter() - started
    num_layers = model.config.num_hidden_layers
    # each layer alone (0: the embeddings), then every window of four that the configs could mix
    choices = [[layer] for layer in range(num_layers + 1)] + [list(range(top - 3, top + 1))
                                                              for top in range(4, num_layers + 1)]
    rows = []
    for layers in choices:
        runs = [train_and_score(data["train"], data["dev"], layers, args.epochs, seed) for seed in args.seeds]
        row = {"layers": layers, "dev_UAS": statistics.mean(run["dev_UAS"] for run in runs), "runs": runs}
        rows.append(row)
        print(f"layers {layers}: dev UAS {row['dev_UAS']:.2f}", flush=True)
    windows = [row for row in rows if len(row["layers"]) == 4]
    write_json(Path(args.output), {
        "what": "a biaffine head-selection probe (no encoder, no tree constraint) on a frozen transformer's word "
                "vectors (word pieces averaged), each layer alone and each window of four mixed by trained "
                "weights; dev UAS in percent, every word; for ranking layers, not a parser's score",
        "model": args.model, "num_hidden_layers": num_layers,
        "data": {"train": f"the first {len(data['train'][0])} sentences of en_ewt-ud-train.conllu of at most "
                          f"{MAX_WORDS} words",
                 "dev": f"the first {len(data['dev'][0])} sentences of en_ewt-ud-dev.conllu of at most {MAX_WORDS} words"},
        "epochs": args.epochs, "seeds": args.seeds, "features_seconds": features_seconds,
        "rows": rows,
        "best_layer": max((row for row in rows if len(row["layers"]) == 1),
                          key=lambda row: row["dev_UAS"])["layers"][0],
        "best_window": max(windows, key=lambda row: row["dev_UAS"])["layers"],
        "last_window_dev_UAS": windows[-1]["dev_UAS"],
        "torch_threads": torch.get_num_threads(),
        **stamp("scripts/layer_probe.py"),
    })


if __name__ == "__main__":
    main()
