"""
The lexical part of enhanced labels filled from the words (`seqgraph_allennlp.common.enhanced_rules`) by hand,
and the predictor's `lexical_labels` option.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from seqgraph_allennlp.common.enhanced_rules import drop_replaced_tree_edges, fill_lexical_labels

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs"
DATA = ROOT / "fixtures" / "conllu" / "en_small.conllu"
BASIC = {"root", "nsubj", "obl", "case", "nmod", "nmod:poss", "conj", "cc", "fixed", "advcl", "mark", "det", "punct",
         "acl:relcl", "obj", "obl:unmarked"}


def fill(rows, graph, only_subtyped=False):
    """rows: (form, lemma, head, relation) per word."""
    forms, lemmas, heads, relations = zip(*rows)
    return fill_lexical_labels(forms, lemmas, heads, relations, graph, BASIC, only_subtyped=only_subtyped)


def test_case_marker_and_fixed_expression():
    # "slept in the park because of rain"
    rows = [("slept", "sleep", 0, "root"), ("in", "in", 4, "case"), ("the", "the", 4, "det"),
            ("park", "park", 1, "obl"), ("because", "because", 7, "case"), ("of", "of", 5, "fixed"),
            ("rain", "rain", 1, "obl")]
    graph = [[(0, "root")], [(4, "case")], [(4, "det")], [(1, "obl:at")], [(7, "case")], [(5, "fixed")],
             [(1, "obl")]]
    filled = fill(rows, graph)
    assert filled[3] == [(1, "obl:in")]
    assert filled[6] == [(1, "obl:because_of")]
    # the words other than obl/nmod/advcl/acl/conj keep their labels
    assert [filled[index] for index in (0, 1, 2, 4, 5)] == [graph[index] for index in (0, 1, 2, 4, 5)]
    # only where the parser gave a subtype
    assert fill(rows, graph, only_subtyped=True)[6] == [(1, "obl")]
    assert fill(rows, graph, only_subtyped=True)[3] == [(1, "obl:in")]


def test_of_several_markers_the_nearest_before_the_word():
    # "jumped out of the box": two case markers, the label takes the nearer
    rows = [("jumped", "jump", 0, "root"), ("out", "out", 5, "case"), ("of", "of", 5, "case"), ("the", "the", 5, "det"),
            ("box", "box", 1, "obl")]
    graph = [[(0, "root")], [(5, "case")], [(5, "case")], [(5, "det")], [(1, "obl")]]
    assert fill(rows, graph)[4] == [(1, "obl:of")]
    # a marker after the word only when none comes before it ("two years ago" style)
    rows = [("left", "leave", 0, "root"), ("years", "year", 1, "obl"), ("ago", "ago", 2, "case")]
    assert fill(rows, [[(0, "root")], [(1, "obl")], [(2, "case")]])[1] == [(1, "obl:ago")]
    rows = [("left", "leave", 0, "root"), ("in", "in", 3, "case"), ("years", "year", 1, "obl"),
            ("ago", "ago", 3, "case")]
    assert fill(rows, [[(0, "root")], [(3, "case")], [(1, "obl")], [(3, "case")]])[2] == [(1, "obl:in")]


def test_lemma_lower_cased_and_forms_when_no_lemma():
    rows = [("went", "go", 0, "root"), ("Into", "into", 3, "case"), ("town", "town", 1, "obl")]
    assert fill(rows, [[(0, "root")], [(3, "case")], [(1, "obl:to")]])[2] == [(1, "obl:into")]
    rows = [("went", "_", 0, "root"), ("Into", "_", 3, "case"), ("town", "_", 1, "obl")]
    assert fill(rows, [[(0, "root")], [(3, "case")], [(1, "obl:to")]])[2] == [(1, "obl:into")]


def test_basic_subtypes_paths_and_unmarked_words_are_left_alone():
    # "John 's dog , which runs"
    rows = [("John", "John", 3, "nmod:poss"), ("'s", "'s", 1, "case"), ("dog", "dog", 0, "root"),
            ("which", "which", 5, "nsubj"), ("runs", "run", 3, "acl:relcl")]
    graph = [[(3, "nmod:poss")], [(1, "case")], [(0, "root")], [(5, "nsubj")], [(3, "acl:relcl")]]
    assert fill(rows, graph) == graph
    rows = [("saw", "see", 0, "root"), ("home", "home", 1, "obl:unmarked")]
    graph = [[(0, "root")], [(1, "conj>obl:x"), (1, "obl:unmarked")]]
    assert fill(rows, graph) == graph
    # no marker: the parser's label stays
    rows = [("saw", "see", 0, "root"), ("today", "today", 1, "obl")]
    assert fill(rows, [[(0, "root")], [(1, "obl:on")]]) == [[(0, "root")], [(1, "obl:on")]]


def test_conjuncts_take_the_coordinator_of_a_later_conjunct_and_symbols_are_no_subtype():
    # "apples , pears and plums" / "A / B"
    rows = [("apples", "apple", 0, "root"), (",", ",", 3, "punct"), ("pears", "pear", 1, "conj"),
            ("and", "and", 5, "cc"), ("plums", "plum", 1, "conj")]
    graph = [[(0, "root")], [(3, "punct")], [(1, "conj")], [(5, "cc")], [(1, "conj:or")]]
    filled = fill(rows, graph)
    assert filled[2] == [(1, "conj:and")] and filled[4] == [(1, "conj:and")]
    rows = [("A", "A", 0, "root"), ("/", "/", 3, "cc"), ("B", "B", 1, "conj")]
    assert fill(rows, [[(0, "root")], [(3, "cc")], [(1, "conj")]])[2] == [(1, "conj")]


def test_two_labels_that_fill_alike_become_one_edge():
    rows = [("went", "go", 0, "root"), ("into", "into", 3, "case"), ("town", "town", 1, "obl")]
    assert fill(rows, [[(0, "root")], [(3, "case")], [(1, "obl"), (1, "obl:to")]])[2] == [(1, "obl:into")]


def test_the_predictor_fills_the_labels_of_its_models_output(enhanced_model_archive, monkeypatch):
    """
    The predictor with `lexical_labels: "filled"` (the default) on a model whose output is the gold tree and
    the gold graph without lexical subtypes (a tiny model predicts too few of them): its DEPS are
    `fill_lexical_labels` of that output, and they get the markers back (`obl:from`).
    """
    from allennlp.models.archival import load_archive
    from allennlp.predictors import Predictor

    import seqgraph_allennlp  # noqa: F401
    from seqgraph_allennlp.common.conllu import read_sentences
    from seqgraph_allennlp.common.enhanced import enhanced_graph

    sentences = list(read_sentences(str(DATA)))
    stripped = [[[[head, label.split(":")[0] if label.split(":")[0] in ("obl", "nmod", "conj") else label]
                  for head, label in word] for word in enhanced_graph(sentence)] for sentence in sentences]
    archive = load_archive(str(enhanced_model_archive))
    basic = set(archive.model.vocab.get_token_to_index_vocabulary("head_tags"))
    outputs = {}
    for lexical_labels in ("filled", "predicted"):
        predictor = Predictor.from_archive(archive, "seqgraph_parser", extra_args={
            "lexical_labels": lexical_labels, "drop_ref_tree_edges": lexical_labels == "filled"})
        forward = predictor._forward_on_instances

        def gold_output(instances, forward=forward):
            results = forward(instances)
            for result, instance in zip(results, instances):
                index = [sentence.words[0].line_number for sentence in sentences].index(
                    instance["metadata"]["conllu"].words[0].line_number)
                result["predicted_heads"] = [word.head for word in sentences[index].words]
                result["predicted_dependencies"] = [word.deprel for word in sentences[index].words]
                result["predicted_deps"] = stripped[index]
            return results

        monkeypatch.setattr(predictor, "_forward_on_instances", gold_output)
        instances = list(predictor._dataset_reader.read(str(DATA)))
        outputs[lexical_labels] = predictor.predict_batch_instance(instances)
    filled_labels = 0
    for sentence, graph, plain, filled in zip(sentences, stripped, outputs["predicted"], outputs["filled"]):
        assert plain["predicted_deps"] == graph
        heads = [word.head for word in sentence.words]
        expected = drop_replaced_tree_edges(heads, fill_lexical_labels(
            [word.form for word in sentence.words], [word.lemma for word in sentence.words], heads,
            [word.deprel for word in sentence.words], [[tuple(pair) for pair in word] for word in graph], basic,
            upos=[word.upos for word in sentence.words],
        ))
        assert filled["predicted_deps"] == [[list(pair) for pair in word] for word in expected]
        filled_labels += sum(pair not in word for word, filled_word in zip(graph, filled["predicted_deps"])
                             for pair in filled_word)
    assert filled_labels > 0
    assert [4, "obl:from"] in outputs["filled"][0]["predicted_deps"][2]


def test_an_unknown_lexical_labels_value_is_refused(enhanced_model_archive, tmp_path):
    result = subprocess.run(
        [str(Path(sys.executable).parent / "allennlp"), "predict", str(enhanced_model_archive), str(DATA),
         "--use-dataset-reader", "--predictor-args", '{"lexical_labels": "guessed"}', "--include-package",
         "seqgraph_allennlp", "--silent", "--output-file", str(tmp_path / "out.jsonl")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode != 0
    assert 'lexical_labels must be "filled" or "predicted", got \'guessed\'' in result.stderr
    assert "Traceback" not in result.stderr


def test_a_relative_pronoun_attached_by_ref_loses_its_tree_edge():
    from seqgraph_allennlp.common.enhanced_rules import drop_replaced_tree_edges

    # "those who do n't": 1 those <- 3 do (acl:relcl); 2 who: tree nsubj of 3, graph ref from 1
    heads = [0, 3, 1, 3]
    graph = [[(0, "root"), (3, "nsubj")], [(1, "ref"), (3, "nsubj")], [(1, "acl:relcl")], [(3, "advmod")]]
    assert drop_replaced_tree_edges(heads, graph) == [
        [(0, "root"), (3, "nsubj")], [(1, "ref")], [(1, "acl:relcl")], [(3, "advmod")]]
    # without ref nothing changes
    plain = [[(0, "root")], [(3, "nsubj")], [(1, "acl:relcl")], [(3, "advmod")]]
    assert drop_replaced_tree_edges(heads, plain) == plain


def test_the_ref_rule_keeps_a_tree_edge_whose_loss_would_cut_the_word_off():
    from seqgraph_allennlp.common.enhanced_rules import drop_replaced_tree_edges

    # the antecedent (3) under the word itself (2) in the tree: taking 1 -> 2 out leaves 2 and 3 unreachable
    heads = [0, 1, 2]
    graph = [[(0, "root")], [(1, "nsubj"), (3, "ref")], [(2, "obj")]]
    assert drop_replaced_tree_edges(heads, graph) == graph
    # two such words each under the other's antecedent: the sentence keeps its graph
    heads = [0, 1, 1, 2, 3]
    graph = [[(0, "root")], [(1, "x"), (5, "ref")], [(1, "x"), (4, "ref")], [(2, "y")], [(3, "y")]]
    assert drop_replaced_tree_edges(heads, graph) == graph


def test_an_unmarked_advcl_takes_a_when_or_where_before_it():
    # "came out when they arrested her": `when` is the clause's advmod, not its mark
    rows = [("came", "come", 0, "root"), ("when", "when", 4, "advmod"), ("they", "they", 4, "nsubj"),
            ("arrested", "arrest", 1, "advcl")]
    graph = [[(0, "root")], [(4, "advmod")], [(4, "nsubj")], [(1, "advcl")]]
    assert fill(rows, graph)[3] == [(1, "advcl:when")]
    # another adverb marks nothing, a `mark` comes first, and an `acl` is not marked so
    rows[1] = ("why", "why", 4, "advmod")
    assert fill(rows, graph)[3] == [(1, "advcl")]
    rows = [("came", "come", 0, "root"), ("if", "if", 4, "mark"), ("when", "when", 4, "advmod"),
            ("arrested", "arrest", 1, "advcl")]
    assert fill(rows, [[(0, "root")], [(4, "mark")], [(4, "advmod")], [(1, "advcl")]])[3] == [(1, "advcl:if")]
    rows = [("time", "time", 0, "root"), ("when", "when", 3, "advmod"), ("arrested", "arrest", 1, "acl")]
    assert fill(rows, [[(0, "root")], [(3, "advmod")], [(1, "acl")]])[2] == [(1, "acl")]


def test_a_verb_marker_is_written_as_its_form():
    # "killed many , including police": the marker's lemma is `include`, EWT's label `nmod:including`
    rows = [("many", "many", 0, "root"), ("including", "include", 3, "case"), ("police", "police", 1, "nmod")]
    graph = [[(0, "root")], [(3, "case")], [(1, "nmod")]]
    forms, lemmas, heads, relations = zip(*rows)
    assert fill_lexical_labels(forms, lemmas, heads, relations, graph, BASIC,
                               upos=["PRON", "VERB", "NOUN"])[2] == [(1, "nmod:including")]
    assert fill_lexical_labels(forms, lemmas, heads, relations, graph, BASIC,
                               upos=["PRON", "ADP", "NOUN"])[2] == [(1, "nmod:include")]
    assert fill(rows, graph)[2] == [(1, "nmod:include")]


def test_a_conjunct_shares_the_marker_of_its_first_conjunct_on_a_shared_edge():
    # "dead in Mosul , Baiji and Tuz": Baiji and Tuz get obl from `dead` through Mosul's `in`
    rows = [("dead", "dead", 0, "root"), ("in", "in", 3, "case"), ("Mosul", "Mosul", 1, "obl"),
            (",", ",", 5, "punct"), ("Baiji", "Baiji", 3, "conj"), ("and", "and", 7, "cc"),
            ("Tuz", "Tuz", 3, "conj")]
    graph = [[(0, "root")], [(3, "case")], [(1, "obl")], [(5, "punct")], [(1, "obl"), (3, "conj")],
             [(7, "cc")], [(1, "obl"), (3, "conj")]]
    filled = fill(rows, graph)
    assert filled[4] == [(1, "obl:in"), (3, "conj:and")]
    assert filled[6] == [(1, "obl:in"), (3, "conj:and")]
    # a conjunct's own marker first ("in Mosul and from Tuz"), and a chain of conjuncts is followed up
    rows = [("dead", "dead", 0, "root"), ("in", "in", 3, "case"), ("Mosul", "Mosul", 1, "obl"),
            ("and", "and", 6, "cc"), ("from", "from", 6, "case"), ("Tuz", "Tuz", 3, "conj"),
            ("Baiji", "Baiji", 6, "conj")]
    graph = [[(0, "root")], [(3, "case")], [(1, "obl")], [(6, "cc")], [(6, "case")], [(1, "obl"), (3, "conj")],
             [(1, "obl"), (6, "conj")]]
    filled = fill(rows, graph)
    assert filled[5] == [(1, "obl:from"), (3, "conj:and")]
    assert filled[6] == [(1, "obl:from"), (6, "conj")]
    # the tree edge of a word with no marker keeps the parser's label: only shared edges look up the chain
    rows = [("dead", "dead", 0, "root"), ("in", "in", 3, "case"), ("Mosul", "Mosul", 1, "obl"),
            ("Tuz", "Tuz", 3, "conj")]
    assert fill(rows, [[(0, "root")], [(3, "case")], [(1, "obl")], [(3, "conj")]])[3] == [(3, "conj")]
