import inspect
import itertools
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Batch, DatasetReader, Vocabulary
from allennlp.data.data_loaders import MultiProcessDataLoader
from allennlp.data.fields import SequenceLabelField, TextField
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenCharactersIndexer
from allennlp.data.tokenizers import Token
from allennlp.models import Model

from seqgraph_allennlp.common.conllu import (
    KEEP_DEPS,
    ConlluError,
    ConlluSentence,
    format_sentence,
    parse_string,
    read_sentences,
)
from seqgraph_allennlp.dataset_readers.seqgraph_ud import SeqGraphUDReader

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "conllu"
EN_SMALL = str(FIXTURES / "en_small.conllu")


def read(reader, name):
    return list(reader.read(str(FIXTURES / name)))


def labels(instance, name):
    return list(instance[name].labels)


def test_registered_and_constructible_from_params():
    assert DatasetReader.by_name("seqgraph_ud") is SeqGraphUDReader
    reader = DatasetReader.from_params(
        Params({"type": "seqgraph_ud", "pos_tags": "xpos", "skip_invalid_trees": True, "max_sentences": 3})
    )
    assert isinstance(reader, SeqGraphUDReader)
    assert reader.pos_tags == "xpos" and reader.skip_invalid_trees and reader.max_sentences == 3


def test_default_indexers_are_words_and_characters():
    indexers = SeqGraphUDReader()._token_indexers
    assert set(indexers) == {"tokens", "token_characters"}
    assert isinstance(indexers["tokens"], SingleIdTokenIndexer) and not indexers["tokens"].lowercase_tokens
    assert isinstance(indexers["token_characters"], TokenCharactersIndexer)
    assert indexers["token_characters"]._min_padding_length == 3


def test_fields_of_a_gold_sentence():
    instances = list(SeqGraphUDReader().read(EN_SMALL))
    assert len(instances) == 6
    first = instances[0]
    # Same field names as allennlp-models' universal_dependencies reader; no pos_tags by default.
    assert set(first.fields) == {"words", "head_tags", "head_indices", "metadata"}
    assert [t.text for t in first["words"].tokens] == ["From", "the", "AP", "comes", "this", "story", ":"]
    assert labels(first, "head_indices") == [3, 3, 4, 0, 6, 4, 4]
    assert labels(first, "head_tags") == ["case", "det", "obl", "root", "det", "nsubj", "punct"]
    assert first["head_indices"]._label_namespace == "head_index_tags"
    assert first["head_tags"]._label_namespace == "head_tags"
    for instance in instances:
        conllu = instance["metadata"]["conllu"]
        assert len(instance["words"]) == len(conllu.words)
        assert labels(instance, "head_indices") == conllu.heads


def test_multiword_tokens_and_empty_nodes_are_not_tokens_but_kept_in_metadata():
    instances = list(SeqGraphUDReader().read(EN_SMALL))
    we_ve = instances[1]
    assert [token.text for token in we_ve["words"].tokens] == ["We", "'ve", "moved", "on", "."]
    metadata = we_ve["metadata"].metadata
    assert set(metadata) == {"words", "pos", "deprels", "conllu"}
    assert metadata["words"] == ["We", "'ve", "moved", "on", "."] and metadata["pos"] is None
    # the gold relations as strings, for LAS on their universal part
    assert metadata["deprels"] == [word.deprel for word in metadata["conllu"].words]
    assert isinstance(metadata["conllu"], ConlluSentence)
    assert "1-2\tWe've\t_\t_\t_\t_\t_\t_\t_\t_" in metadata["conllu"].lines
    assert metadata["conllu"].sent_id.endswith("132900-0002")

    empty_node = instances[3]
    assert len(empty_node["words"]) == 33
    assert any(line.startswith("8.1\twrite") for line in empty_node["metadata"]["conllu"].lines)


def test_metadata_writes_the_input_back_byte_for_byte():
    instances = SeqGraphUDReader().read(EN_SMALL)
    written = "".join(
        format_sentence(i["metadata"]["conllu"], labels(i, "head_indices"), labels(i, "head_tags"), deps=KEEP_DEPS)
        for i in instances
    )
    assert written.encode("utf-8") == Path(EN_SMALL).read_bytes()


@pytest.mark.parametrize(
    "column, expected", [("upos", ["PRON", "AUX", "VERB"]), ("xpos", ["PRP", "VBP", "VBN"])]
)
def test_pos_tags_option(column, expected):
    instance = list(SeqGraphUDReader(pos_tags=column).read(EN_SMALL))[1]
    assert labels(instance, "pos_tags")[:3] == expected
    assert instance["pos_tags"]._label_namespace == "pos"
    assert instance["metadata"]["pos"][:3] == expected


@pytest.mark.parametrize("bad", ["UPOS", "pos", "", "deprel"])
def test_unknown_pos_tags_option_is_a_configuration_error(bad):
    with pytest.raises(ConfigurationError, match="pos_tags must be one of"):
        SeqGraphUDReader(pos_tags=bad)


def test_upos_targets_option():
    # off by default: allennlp-models' biaffine_parser would reject the field
    assert all("upos_tags" not in instance.fields for instance in read(SeqGraphUDReader(), "en_small.conllu"))
    reader = DatasetReader.from_params(Params({"type": "seqgraph_ud", "upos_targets": True}))
    instances = read(reader, "en_small.conllu")
    for instance in instances:
        conllu = instance["metadata"]["conllu"]
        assert set(instance.fields) == {"words", "head_tags", "head_indices", "upos_tags", "metadata"}
        assert labels(instance, "upos_tags") == conllu.upos
        assert instance["upos_tags"]._label_namespace == "upos"
    assert labels(instances[1], "upos_tags")[:3] == ["PRON", "AUX", "VERB"]
    # the gold input tags (`pos_tags`) are another option, in another namespace: both can be on
    both = list(SeqGraphUDReader(pos_tags="upos", upos_targets=True).read(EN_SMALL))[1]
    assert both["pos_tags"]._label_namespace == "pos"
    assert labels(both, "pos_tags") == labels(both, "upos_tags")


def test_pos_namespaces_are_padded_without_allennlps_namespace_warning(caplog, monkeypatch):
    # AllenNLP warns once per process and namespace: forget earlier warnings so that this test can fail
    monkeypatch.setattr(SequenceLabelField, "_already_warned_namespaces", set())
    with caplog.at_level(logging.WARNING):
        instance = read(SeqGraphUDReader(pos_tags="upos", upos_targets=True), "en_small.conllu")[1]
    assert not [record for record in caplog.records if "label namespace" in record.getMessage()]
    # the namespaces are padded on purpose: a tag unseen in training indexes to the unknown entry
    vocab = Vocabulary()
    vocab.add_tokens_to_namespace(["PRON"], "upos")
    vocab.add_tokens_to_namespace(["PRON"], "pos")
    for name, namespace in (("upos_tags", "upos"), ("pos_tags", "pos")):
        instance[name].index(vocab)
        unknown = vocab.get_token_index(vocab._oov_token, namespace)
        assert instance[name]._indexed_labels[:3] == [vocab.get_token_index("PRON", namespace), unknown, unknown]
    # the plain field would have logged it (the test's premise)
    SequenceLabelField(["PRON"], TextField([Token("I")]), label_namespace="upos")
    assert [record for record in caplog.records if "label namespace was 'upos'" in record.getMessage()]


def test_no_upos_targets_for_a_sentence_without_upos():
    reader = SeqGraphUDReader(upos_targets=True)
    # every UPOS is `_` (raw text to parse): no targets
    assert all("upos_tags" not in instance.fields for instance in read(reader, "no_heads.conllu"))
    # only some are: an error where UPOS is a target (the tagger's), unread otherwise
    partial = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    with pytest.raises(ConlluError, match=r"^<string>:2: word 2 has no UPOS \('_'\) but word 1 at line 1 has: "):
        list(reader.sentences_to_instances(parse_string(partial)))
    (instance,) = SeqGraphUDReader().sentences_to_instances(parse_string(partial))
    assert "upos_tags" not in instance.fields and "head_indices" in instance.fields
    # a plain word list (the predictor's input) has none either
    assert "upos_tags" not in reader.text_to_instance(["Dogs", "bark"]).fields
    with pytest.raises(ValueError, match="2 words but 1 upos_tags"):
        reader.text_to_instance(["Dogs", "bark"], upos_tags=["NOUN"])


def test_raw_text_without_heads_gets_no_head_fields():
    instances = read(SeqGraphUDReader(), "no_heads.conllu")
    assert len(instances) == 2
    assert all(set(i.fields) == {"words", "metadata"} for i in instances)
    assert [t.text for t in instances[0]["words"].tokens] == ["I", "ca", "n't", "come", "today", "."]
    assert "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_" in instances[0]["metadata"]["conllu"].lines


def test_text_to_instance_from_plain_words():
    reader = SeqGraphUDReader()
    instance = reader.text_to_instance(["Hello", "world"])
    assert set(instance.fields) == {"words", "metadata"}
    assert instance["metadata"].metadata == {"words": ["Hello", "world"], "pos": None, "deprels": None, "conllu": None}
    instance = reader.text_to_instance(["Hello", "world"], ["INTJ", "NOUN"], [0, 1], ["root", "vocative"])
    assert set(instance.fields) == {"words", "pos_tags", "head_tags", "head_indices", "metadata"}
    reader.apply_token_indexers(instance)  # what Predictor and DatasetReader.read do
    assert set(instance["words"]._token_indexers) == {"tokens", "token_characters"}
    with pytest.raises(ValueError, match="together"):
        reader.text_to_instance(["Hello"], heads=[0])
    with pytest.raises(ValueError, match="2 words but 1 pos_tags"):
        reader.text_to_instance(["Hello", "world"], ["INTJ"])


@pytest.mark.parametrize(
    "name, line",
    [
        ("bad_columns.conllu", 11),
        ("bad_id.conllu", 11),
        ("bad_head.conllu", 11),
        ("head_out_of_range.conllu", 13),
        ("cycle.conllu", 12),
        ("no_root.conllu", 10),
        ("two_roots.conllu", 12),
    ],
)
def test_malformed_files_raise_naming_file_and_line(name, line):
    path = str(FIXTURES / name)
    with pytest.raises(ConlluError) as info:
        list(SeqGraphUDReader().read(path))
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert name in str(info.value)


@pytest.mark.parametrize(
    "name, line, problem",
    [
        ("cycle.conllu", 12, "cycle 3 -> 4 -> 3"),
        ("no_root.conllu", 10, "no word has head 0"),
        ("two_roots.conllu", 12, "2 words have head 0"),
    ],
)
def test_skip_invalid_trees_skips_with_a_warning(caplog, name, line, problem):
    reader = SeqGraphUDReader(skip_invalid_trees=True)
    with caplog.at_level(logging.WARNING, logger="seqgraph_allennlp.dataset_readers.seqgraph_ud"):
        instances = read(reader, name)
    assert [i["metadata"]["words"] for i in instances] == [["Thanks", "a", "lot", "."]]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert f"{name}:{line}: sentence starting at line 8 is not a tree: {problem}" in warnings[0]


def test_skip_invalid_trees_does_not_skip_format_errors():
    with pytest.raises(ConlluError, match="bad_head.conllu:11"):
        read(SeqGraphUDReader(skip_invalid_trees=True), "bad_head.conllu")


def test_an_empty_file_is_an_error():
    # nothing to train on, evaluate or parse: said, not an empty result
    path = str(FIXTURES / "empty.conllu")
    with pytest.raises(ConlluError) as info:
        read(SeqGraphUDReader(), "empty.conllu")
    assert str(info.value) == f"{path}: no sentences: the file is empty"
    # a file cut to no sentence on purpose is not read at all
    assert read(SeqGraphUDReader(max_sentences=0), "empty.conllu") == []


def write_conllu(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def word_line(token_id, form, head="_", deprel="_", upos="_"):
    return f"{token_id}\t{form}\t_\t{upos}\t_\t_\t{head}\t{deprel}\t_\t_\n"


GOLD_SENTENCE = (
    "# text = Dogs bark\n" + word_line(1, "Dogs", 2, "nsubj", "NOUN") + word_line(2, "bark", 0, "root", "VERB")
)
RAW_SENTENCE = "# text = Cats sleep\n" + word_line(1, "Cats") + word_line(2, "sleep")


@pytest.mark.parametrize(
    "second_sentence, problem",
    [
        # the first sentence is lines 1-3; the second one's comment is line 5, "Cats" line 6, "sleep" line 7
        (word_line(1, "Cats", 2, "nsubj") + word_line(2, "sleep", "_", "root"),
         "7: word 2 has no HEAD ('_') but word 1 at line 6 has: HEAD must be given on every word of the sentence "
         "or on none"),
        (word_line(1, "Cats", 2, "_") + word_line(2, "sleep", 0, "root"),
         "6: word 1 has no DEPREL ('_') but word 2 at line 7 has: DEPREL must be given on every word of the "
         "sentence or on none"),
    ],
)  # fmt: skip
def test_a_partly_annotated_sentence_is_an_error(tmp_path, second_sentence, problem):
    # kept, it would lose its gold fields without a word, and not batch with the annotated first sentence
    path = write_conllu(tmp_path / "partial.conllu", GOLD_SENTENCE + "\n# text = Cats sleep\n" + second_sentence)
    for reader in (SeqGraphUDReader(), SeqGraphUDReader(skip_invalid_trees=True), SeqGraphUDReader(require_gold=True)):
        with pytest.raises(ConlluError) as info:
            list(reader.read(path))
        assert str(info.value) == f"{path}:{problem}"


def test_raw_text_and_gold_sentences_mix_for_prediction(tmp_path):
    # `_` in every HEAD and DEPREL: raw text to parse, beside annotated sentences (the predictor drops gold)
    path = write_conllu(tmp_path / "mixed.conllu", GOLD_SENTENCE + "\n" + RAW_SENTENCE)
    instances = list(SeqGraphUDReader().read(path))
    assert ["head_indices" in instance.fields for instance in instances] == [True, False]


def test_require_gold_refuses_a_sentence_without_its_gold_tree(tmp_path):
    # what `allennlp evaluate` reads with: raw text cannot be scored (it would score UAS 0)
    reader = SeqGraphUDReader(require_gold=True)
    assert len(list(reader.read(EN_SMALL))) == 6
    path = write_conllu(tmp_path / "mixed.conllu", GOLD_SENTENCE + "\n" + RAW_SENTENCE)
    with pytest.raises(ConlluError) as info:
        list(reader.read(path))
    assert str(info.value) == (
        f"{path}:6: sentence starting at line 5 has no gold HEAD and DEPREL ('_' on every word): evaluation "
        "needs the gold tree of every sentence (allennlp predict parses text without one)"
    )
    heads_only = write_conllu(tmp_path / "heads_only.conllu", word_line(1, "Dogs", 2) + word_line(2, "bark", 0))
    with pytest.raises(ConlluError, match=r":1: sentence starting at line 1 has no gold DEPREL \('_' on every word\)"):
        list(reader.read(heads_only))


def test_require_gold_refuses_targets_on_some_sentences_only(tmp_path):
    # UPOS on the first sentence, none on the second: AllenNLP could not batch their instances
    second = "# text = Cats sleep\n" + word_line(1, "Cats", 2, "nsubj") + word_line(2, "sleep", 0, "root")
    path = write_conllu(tmp_path / "upos.conllu", GOLD_SENTENCE + "\n" + second)
    assert len(list(SeqGraphUDReader(require_gold=True).read(path))) == 2  # UPOS is no target
    with pytest.raises(ConlluError) as info:
        list(SeqGraphUDReader(require_gold=True, upos_targets=True).read(path))
    assert str(info.value) == (
        f"{path}:6: sentence starting at line 5 has no gold UPOS but the sentence starting at line 1 has one: "
        "evaluation needs it on every sentence or on none"
    )
    # without require_gold (prediction), the sentences are read, the second one without targets
    instances = list(SeqGraphUDReader(upos_targets=True).read(path))
    assert ["upos_tags" in instance.fields for instance in instances] == [True, False]


@pytest.mark.parametrize("max_sentences, expected", [(None, 6), (0, 0), (2, 2), (6, 6), (100, 6)])
def test_max_sentences(max_sentences, expected):
    instances = list(SeqGraphUDReader(max_sentences=max_sentences).read(EN_SMALL))
    assert len(instances) == expected
    if expected:
        assert instances[0]["metadata"]["words"][0] == "From"


def test_max_sentences_counts_skipped_sentences_and_stops_before_bad_ones():
    # Only the first (valid) sentence is read, so the malformed second one is never reached.
    assert len(read(SeqGraphUDReader(max_sentences=1), "bad_columns.conllu")) == 1
    assert len(read(SeqGraphUDReader(max_sentences=2, skip_invalid_trees=True), "cycle.conllu")) == 1


def test_max_instances_is_passed_to_dataset_reader():
    assert len(list(SeqGraphUDReader(max_instances=4).read(EN_SMALL))) == 4


def test_reading_is_lazy():
    assert inspect.isgeneratorfunction(SeqGraphUDReader._read)
    instances = SeqGraphUDReader().read(str(FIXTURES / "bad_head.conllu"))
    assert isinstance(instances, Iterator)
    # The first sentence is valid and comes out before the second one is even parsed.
    assert next(instances)["metadata"]["words"] == ["Thanks", "a", "lot", "."]
    with pytest.raises(ConlluError):
        next(instances)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_multiprocess_data_loader_shards_sentences(num_workers):
    # Workers build instances without indexers (added by apply_token_indexers) and read disjoint shards
    # of the first max_sentences sentences.
    reader = SeqGraphUDReader(pos_tags="upos", max_sentences=5)
    loader = MultiProcessDataLoader(reader, EN_SMALL, batch_size=2, num_workers=num_workers)
    loader.index_with(Vocabulary.from_instances(loader.iter_instances()))
    sent_ids = sorted(m["conllu"].sent_id for batch in loader for m in batch["metadata"])
    expected = sorted(s.sent_id for s in itertools.islice(read_sentences(EN_SMALL), 5))
    assert sent_ids == expected


def test_instances_feed_allennlp_models_biaffine_parser():
    reader = SeqGraphUDReader(pos_tags="upos")
    instances = list(reader.read(EN_SMALL))
    vocab = Vocabulary.from_instances(instances)
    assert "root" in vocab.get_token_to_index_vocabulary("head_tags")
    assert "PRON" in vocab.get_token_to_index_vocabulary("pos")
    torch.manual_seed(0)
    model = Model.from_params(
        vocab=vocab,
        params=Params(
            {
                "type": "biaffine_parser",
                "text_field_embedder": {
                    "token_embedders": {
                        "tokens": {"type": "embedding", "embedding_dim": 8},
                        "token_characters": {
                            "type": "character_encoding",
                            "embedding": {"embedding_dim": 4},
                            "encoder": {
                                "type": "cnn",
                                "embedding_dim": 4,
                                "num_filters": 4,
                                "ngram_filter_sizes": [3],  # needs min_padding_length=3
                            },
                        },
                    }
                },
                "pos_tag_embedding": {"embedding_dim": 4, "vocab_namespace": "pos"},
                "encoder": {"type": "lstm", "input_size": 16, "hidden_size": 6, "bidirectional": True},
                "tag_representation_dim": 5,
                "arc_representation_dim": 5,
            }
        ),
    )
    batch = Batch(instances)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()
    assert tensors["head_indices"].shape == (6, 33)
    model.eval()
    with torch.no_grad():
        output = model(**tensors)
    assert torch.isfinite(output["loss"])
    # Decoding reads the sentence lengths and tags back from metadata["words"] and metadata["pos"].
    readable = model.make_output_human_readable(output)
    assert [len(heads) for heads in readable["predicted_heads"]] == [7, 5, 16, 33, 11, 6]
    assert readable["words"][1] == ["We", "'ve", "moved", "on", "."]
    assert readable["pos"][1] == ["PRON", "AUX", "VERB", "ADV", "PUNCT"]


def test_reads_the_shipped_english_ewt_dev_set():
    path = REPO / "data" / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
    reader = SeqGraphUDReader(pos_tags="upos")
    num_instances = num_words = 0
    for instance in reader.read(str(path)):
        num_instances += 1
        num_words += len(instance["words"])
        assert len(instance["head_indices"]) == len(instance["words"])
    assert num_instances == 2001
    assert num_words == 25147
