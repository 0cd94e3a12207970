"""
The UPOS tagger head on the parser's encoder (`predict_upos`, the reader's `upos_targets`,
training_config/coach_valid_upos.jsonnet): the loss and the metric against computations of their own, the
configs, and the predictor and the Python API filling the UPOS column of text input without overwriting
gold UPOS unless asked. The reader's targets: tests/test_seqgraph_ud_reader.py; training, saving, loading
and batch consistency: tests/test_model.py (`coach_valid_upos` in `SEQGRAPH_CONFIGS`).
"""
import json
from pathlib import Path

import pytest
import torch
from allennlp.commands.predict import _PredictManager
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.common.testing import ModelTestCase
from allennlp.data import Vocabulary
from allennlp.models import Model
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor

import seqgraph_allennlp  # noqa: F401
from seqgraph_allennlp import Parser
from seqgraph_allennlp.common.conllu import check_tree, parse_string
from seqgraph_allennlp.dataset_readers import SeqGraphUDReader
from seqgraph_allennlp.predictors import SeqGraphParserPredictor

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
CONLLU = ROOT / "fixtures" / "conllu"
DATA = CONLLU / "en_small.conllu"
NON_PADDED = ["*labels", "head_index_tags"]
SPECIAL = {"@@PADDING@@", "@@UNKNOWN@@"}
TEXT = "The cat sat on the mat. Then it left!"

# coach_valid without its UPOS tagger (docs/TRAINING.md, "UPOS tagger")
NO_TAGGER = '{"dataset_reader.upos_targets": false, "model.predict_upos": false}'


def without(tensors: dict, *names: str) -> dict:
    return {key: value for key, value in tensors.items() if key not in names}


# -------------------------------------------------------------------------------------------------------
# model
# -------------------------------------------------------------------------------------------------------


class TestUposTagger(ModelTestCase):
    def set_up(self, **options):
        overrides = json.dumps({f"model.{key}": value for key, value in options.items()})
        self.set_up_model(CONFIGS / "coach_valid_upos.jsonnet", DATA, seed=13)
        if options:
            params = Params.from_file(str(CONFIGS / "coach_valid_upos.jsonnet"), overrides)
            torch.manual_seed(13)
            self.model = Model.from_params(vocab=self.vocab, params=params["model"])
        self.tensors = self.dataset.as_tensor_dict()

    def _train_a_little(self, steps: int = 5):
        self.model.train()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)
        for _ in range(steps):
            optimizer.zero_grad()
            self.model(**self.tensors)["loss"].backward()
            optimizer.step()
        self.model.eval()

    def _logits_and_mask(self):
        """The tagger's scores computed here from the model's modules, `(batch_size, N, num_upos)`."""
        with torch.no_grad():
            _, encoded, _, node_mask = self.model.encode(self.tensors["words"], None)
            logits = self.model.upos_projection(self.model.upos_feedforward(encoded[:, 1:]))
        return logits, node_mask[:, 1:]

    def test_the_twin_config_has_the_tagger(self):
        self.set_up()
        assert self.model.predicts_upos and self.model.upos_loss_weight == 1.0
        assert "upos_tags" in self.tensors
        self.model.eval()
        # nothing counted yet: no UPOS accuracy of 0 is reported
        assert "UPOS" not in self.model.get_metrics()
        with torch.no_grad():
            self.model(**self.tensors)
        assert set(self.model.get_metrics()) >= {"UPOS", "UAS", "LAS"}

    @pytest.mark.parametrize("weight", [1.0, 0.3])
    def test_the_loss_is_the_parser_loss_plus_weight_times_the_tagger_cross_entropy(self, weight):
        self.set_up(upos_loss_weight=weight)
        self._train_a_little(2)
        with torch.no_grad():
            with_tags = self.model(**self.tensors)
            without_tags = self.model(**without(self.tensors, "upos_tags"))
            tags_only = self.model(**without(self.tensors, "head_indices", "head_tags"))
        logits, mask = self._logits_and_mask()
        # cross-entropy over the words only, mean over all words of the batch
        expected = torch.nn.functional.cross_entropy(logits[mask], self.tensors["upos_tags"][mask])
        assert "upos_loss" not in without_tags
        assert with_tags["upos_loss"].item() == pytest.approx(expected.item(), rel=1e-5)
        assert with_tags["loss"].item() == pytest.approx(
            without_tags["loss"].item() + weight * expected.item(), rel=1e-5
        )
        # tags without gold heads: the tagger's loss alone
        assert tags_only["loss"].item() == pytest.approx(weight * expected.item(), rel=1e-5)

    def test_upos_accuracy_is_counted_by_hand(self):
        self.set_up()
        self._train_a_little()
        self.model.get_metrics(reset=True)
        with torch.no_grad():
            output = self.model(**self.tensors)
        metrics = self.model.get_metrics(reset=True)
        logits, mask = self._logits_and_mask()
        # the padding and unknown entries (indices 0 and 1 of the padded namespace) are never predicted
        assert [self.vocab.get_token_from_index(index, "upos") for index in (0, 1)] == sorted(SPECIAL)
        predicted = logits[:, :, 2:].argmax(dim=-1) + 2
        assert torch.equal(output["upos"][mask], predicted[mask])
        gold = self.tensors["upos_tags"]
        hand = ((predicted == gold) & mask).sum().item() / mask.sum().item()
        assert 0.0 < hand < 1.0  # a test that can fail both ways
        assert metrics["UPOS"] == pytest.approx(hand)
        # training batches count it too (they are not decoded)
        self.model.train()
        self.model(**self.tensors)
        assert "UPOS" in self.model.get_metrics(reset=True)

    def test_forward_without_gold_tags_predicts_tags(self):
        # what prediction on text does: no gold tags, heads or labels
        self.set_up()
        self.model.eval()
        with torch.no_grad():
            output = self.model(**without(self.tensors, "upos_tags", "head_indices", "head_tags"))
        assert "loss" not in output and output["upos"].shape == self.tensors["upos_tags"].shape
        readable = self.model.make_output_human_readable(output)
        tags = set(self.vocab.get_token_to_index_vocabulary("upos")) - SPECIAL
        for instance, predicted in zip(self.instances, readable["predicted_upos"]):
            assert len(predicted) == len(instance["words"])
            assert set(predicted) <= tags

    def test_the_parser_starts_alike_with_and_without_the_tagger(self):
        # the tagger's modules are built last: a seed gives the parser the same start either way, so that
        # runs with and without the tagger compare
        self.set_up()
        params = Params.from_file(str(CONFIGS / "coach_valid.jsonnet"), NO_TAGGER)
        torch.manual_seed(13)
        plain = Model.from_params(vocab=self.vocab, params=params["model"])
        torch.manual_seed(13)
        tagged_params = Params.from_file(str(CONFIGS / "coach_valid_upos.jsonnet"))
        tagged = Model.from_params(vocab=self.vocab, params=tagged_params["model"])
        plain_state, tagged_state = plain.state_dict(), tagged.state_dict()
        assert {key for key in tagged_state if key not in plain_state} == {
            key for key in tagged_state if key.startswith(("upos_feedforward.", "upos_projection."))
        }
        for key, value in plain_state.items():
            assert torch.equal(value, tagged_state[key]), key
        assert "UPOS" not in plain.get_metrics()
        plain.eval()
        tagged.eval()
        with torch.no_grad():
            assert torch.equal(plain(**self.tensors)["heads"], tagged(**self.tensors)["heads"])

    def test_configuration_errors(self):
        self.set_up()
        params = Params.from_file(str(CONFIGS / "coach_valid_upos.jsonnet"))["model"]
        # a vocabulary built without the reader's upos_targets
        instances = list(SeqGraphUDReader().read(str(DATA)))
        vocab = Vocabulary.from_instances(instances, non_padded_namespaces=NON_PADDED)
        with pytest.raises(ConfigurationError, match='predict_upos needs the "upos" vocabulary namespace.*none'):
            Model.from_params(vocab=vocab, params=params.duplicate())
        # the namespace with its padding and unknown entries only
        assert len(vocab.get_index_to_token_vocabulary("upos")) == 2
        with pytest.raises(ConfigurationError, match="upos_targets: true.*the namespace has no label"):
            Model.from_params(vocab=vocab, params=params.duplicate())
        negative = params.duplicate()
        negative["upos_loss_weight"] = -1.0
        with pytest.raises(ConfigurationError, match="upos_loss_weight must be >= 0"):
            Model.from_params(vocab=self.vocab, params=negative)


# -------------------------------------------------------------------------------------------------------
# configs
# -------------------------------------------------------------------------------------------------------


def test_the_seqgraph_parameter_and_the_shipped_configs(tmp_path):
    common = ROOT / "training_config" / "common.libsonnet"
    config = tmp_path / "tagged.jsonnet"
    config.write_text(
        f"local common = import '{common}';\n"
        "common.seqgraph(oracle={ type: 'coaching', beta: 0.5 }, roll_in={ type: 'valid_policy', beta: 0.5, "
        "greedy: true }, policy_support='valid', head_selection_weight=1.0, tau=0.05, upos_loss_weight=0.5, "
        "recurrent_hidden_dim=64, recurrent_bfloat16_training=true)\n"
    )
    shipped = ROOT / "training_config" / "coach_valid_upos.jsonnet"
    # the function's parameter turns on the reader option and the model head together
    assert Params.from_file(str(config)).as_dict() == Params.from_file(
        str(shipped), '{"model.upos_loss_weight": 0.5}'
    ).as_dict()
    tagged = Params.from_file(str(shipped)).as_flat_dict()
    recommended = ROOT / "training_config" / "coach_valid.jsonnet"
    # the recommended config has the tagger: coach_valid_upos is the same config under its older name
    assert Params.from_file(str(recommended)).as_flat_dict() == tagged
    # the overrides that docs/TRAINING.md and common.libsonnet give take it away, and nothing else
    plain = Params.from_file(str(recommended), NO_TAGGER).as_flat_dict()
    assert {key for key in set(tagged) | set(plain) if tagged.get(key) != plain.get(key)} == {
        "dataset_reader.upos_targets", "model.predict_upos"
    }
    # off by default: no shipped config but coach_valid (and coach_valid_upos) has it; the English model's
    # config keeps none, as its row was trained
    for name in ("coach_valid_paper", "one_step", "uniform", "annealed", "biaffine_mst"):
        flat = Params.from_file(str(ROOT / "training_config" / f"{name}.jsonnet")).as_flat_dict()
        assert not any("upos" in key for key in flat), name
    # the dotted overrides of common.libsonnet's comment give the same config
    overrides = '{"dataset_reader.upos_targets": true, "model.predict_upos": true, "model.upos_loss_weight": 1.0}'
    switched_on = Params.from_file(str(ROOT / "training_config" / "one_step.jsonnet"), overrides).as_flat_dict()
    assert switched_on["model.predict_upos"] and switched_on["dataset_reader.upos_targets"]
    # and name exactly what the recommended config has on
    assert Params.from_file(str(recommended), overrides).as_flat_dict() == tagged


# -------------------------------------------------------------------------------------------------------
# predictor and API, on a tiny model with the tagger trained once for this module
# -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def upos_archive(tmp_path_factory):
    from allennlp.commands.train import train_model_from_file

    serialization_dir = tmp_path_factory.mktemp("upos_model") / "model"
    train_model_from_file(
        str(CONFIGS / "coach_valid_upos.jsonnet"), str(serialization_dir), overrides='{"trainer.num_epochs": 1}'
    )
    metrics = json.loads((serialization_dir / "metrics.json").read_text())
    assert 0.0 <= metrics["validation_UPOS"] <= 1.0 and "training_UPOS" in metrics
    return serialization_dir / "model.tar.gz"


@pytest.fixture(scope="module")
def archive(upos_archive):
    return load_archive(upos_archive)


def predictor(archive, **extra_args) -> SeqGraphParserPredictor:
    return Predictor.from_archive(archive, "seqgraph_parser", extra_args=extra_args)


def untagged_model_and_reader():
    """A model without the tagger (not trained: its trees do not matter here)."""
    reader = SeqGraphUDReader()
    vocab = Vocabulary.from_instances(list(reader.read(str(DATA))), non_padded_namespaces=NON_PADDED)
    torch.manual_seed(0)
    params = Params.from_file(str(CONFIGS / "coach_valid.jsonnet"), NO_TAGGER)
    return Model.from_params(vocab=vocab, params=params["model"]), reader


def test_text_input_gets_predicted_upos(archive):
    tags = set(archive.model.vocab.get_token_to_index_vocabulary("upos")) - SPECIAL
    as_json = predictor(archive).predict_json({"text": TEXT})["sentences"]
    assert len(as_json) == 2
    conllu = predictor(archive, output_format="conllu")
    as_conllu = conllu.predict_json({"text": TEXT})["sentences"]
    for record, output in zip(as_json, as_conllu):
        assert len(record["predicted_upos"]) == len(record["words"]) and set(record["predicted_upos"]) <= tags
        (sentence,) = parse_string(conllu.dump_line(output))
        check_tree(sentence)
        # the UPOS column holds the prediction; the other columns are as before
        assert sentence.upos == record["predicted_upos"] == output["predicted_upos"]
        assert sentence.heads == record["predicted_heads"]
        assert all(word.lemma == word.xpos == word.feats == "_" for word in sentence.words)
    # a words record, and the dump of a JSON output as CoNLL-U, too
    record = predictor(archive).predict_json({"words": ["Dogs", "bark", "."]})
    assert len(record["predicted_upos"]) == 3
    assert parse_string(conllu.dump_line(record))[0].upos == record["predicted_upos"]


def test_words_with_pos_keep_their_tags_unless_asked(archive):
    record = {"words": ["The", "cat", "sat"], "pos": ["DET", "NOUN", "VERB"]}
    output = predictor(archive, output_format="conllu").predict_json(record)
    # the model has no POS embedding: the given tags go to the UPOS column and stay there
    assert parse_string(output["conllu"])[0].upos == record["pos"]
    overwritten = predictor(archive, output_format="conllu", overwrite_upos=True).predict_json(record)
    assert parse_string(overwritten["conllu"])[0].upos == overwritten["predicted_upos"] == output["predicted_upos"]


def run_manager(predictor: SeqGraphParserPredictor, input_path: Path, output_path: Path) -> str:
    """What `allennlp predict --use-dataset-reader` does once the predictor is loaded."""
    _PredictManager(predictor, str(input_path), str(output_path), 4, False, True).run()
    return output_path.read_text(encoding="utf-8")


def json_records(text: str):
    return [json.loads(line) for line in text.splitlines()]


def upos_column_and_the_rest(text: str):
    """
    The UPOS of each word line, and every line with its UPOS, HEAD, DEPREL and DEPS blanked, without the
    empty nodes (the enhanced layer, which a tree model does not write).
    """
    upos, rest = [], []
    for line in text.rstrip("\n").splitlines():
        columns = line.split("\t")
        if len(columns) == 10 and "." in columns[0]:
            continue
        if len(columns) == 10 and columns[0].isdigit():
            upos.append(columns[3])
            columns[3] = columns[6] = columns[7] = columns[8] = ""
        rest.append("\t".join(columns))
    return upos, rest


def test_conllu_input_keeps_gold_upos_unless_asked(archive, tmp_path):
    gold = parse_string(DATA.read_text(encoding="utf-8"))
    gold_upos, input_rest = upos_column_and_the_rest(DATA.read_text(encoding="utf-8"))
    # the reader of the archive adds gold UPOS as targets: the predictor drops them with the gold tree
    assert archive.validation_dataset_reader.upos_targets
    archive.model.get_metrics(reset=True)
    records = json_records(run_manager(predictor(archive), DATA, tmp_path / "out.jsonl"))
    assert archive.model.upos_tagger.accuracy.total_count == 0  # no metric was counted on the input's gold tags
    predicted = [tag for record in records for tag in record["predicted_upos"]]
    assert len(predicted) == len(gold_upos)
    # a barely trained tagger: the check below can tell gold from predicted tags
    assert predicted != gold_upos

    kept = run_manager(predictor(archive, output_format="conllu"), DATA, tmp_path / "kept.conllu")
    upos, rest = upos_column_and_the_rest(kept)
    assert upos == gold_upos and rest == input_rest
    assert [sentence.heads for sentence in parse_string(kept)] == [record["predicted_heads"] for record in records]

    overwritten = run_manager(
        predictor(archive, output_format="conllu", overwrite_upos=True), DATA, tmp_path / "overwritten.conllu"
    )
    upos, rest = upos_column_and_the_rest(overwritten)
    assert upos == predicted and rest == input_rest
    assert len(gold) == len(records)


def test_conllu_input_without_upos_gets_predicted_upos(archive, tmp_path):
    path = CONLLU / "no_heads.conllu"
    records = json_records(run_manager(predictor(archive), path, tmp_path / "out.jsonl"))
    output = run_manager(predictor(archive, output_format="conllu"), path, tmp_path / "out.conllu")
    upos, rest = upos_column_and_the_rest(output)
    assert upos == [tag for record in records for tag in record["predicted_upos"]]
    assert rest == upos_column_and_the_rest(path.read_text(encoding="utf-8"))[1]


def test_a_model_without_the_tagger_refuses_overwrite_upos():
    model, reader = untagged_model_and_reader()
    assert not model.predicts_upos
    with pytest.raises(ConfigurationError, match="overwrite_upos needs a model with a UPOS tagger"):
        SeqGraphParserPredictor(model, reader, overwrite_upos=True)
    with pytest.raises(ConfigurationError, match="overwrite_upos needs a model with a UPOS tagger"):
        Parser(model, reader, overwrite_upos=True)
    # and its output has no predicted_upos, its UPOS column stays `_`
    conllu = SeqGraphParserPredictor(model, reader, output_format="conllu")
    output = conllu.predict_json({"words": ["Dogs", "bark"]})
    assert "predicted_upos" not in output and parse_string(output["conllu"])[0].upos == ["_", "_"]


def test_the_api_returns_upos(upos_archive, archive):
    parser = Parser.from_archive(upos_archive)
    expected = predictor(archive).predict_json({"text": TEXT})["sentences"]
    result = parser.parse(TEXT)
    assert [[word.upos for word in sentence.words] for sentence in result] == [
        record["predicted_upos"] for record in expected
    ]
    (words,) = parser.parse(["Dogs", "bark", "."])
    assert all(word.upos is not None for word in words.words)
    # CoNLL-U input keeps its gold UPOS, unless asked
    gold = [word.upos for sentence in parse_string(DATA.read_text(encoding="utf-8")) for word in sentence.words]
    assert [word.upos for sentence in parser.parse_conllu(DATA) for word in sentence.words] == gold
    overwritten = Parser.from_archive(upos_archive, overwrite_upos=True).parse_conllu(DATA)
    records = predictor(archive).predict_batch_instance(list(archive.validation_dataset_reader.read(str(DATA))))
    assert [word.upos for sentence in overwritten for word in sentence.words] == [
        tag for record in records for tag in record["predicted_upos"]
    ]
