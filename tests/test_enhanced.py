"""
The enhanced UD layer (`seqgraph_allennlp.common.enhanced`): DEPS read, checked, collapsed over empty nodes as
the UD tools' `enhanced_collapse_empty_nodes.pl` does, written back (`seqgraph_allennlp.common.deps`); ELAS and EULAS
(`seqgraph_allennlp.common.scoring`) by udeval and by this project's own count; UD validation of the output.
"""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from seqgraph_allennlp.common import scoring
from seqgraph_allennlp.common.conllu import (
    ConlluError,
    format_gold,
    format_sentence,
    is_empty_node_line,
    parse_string,
    read_sentences,
)
from seqgraph_allennlp.common.deps import expand_paths, format_deps
from seqgraph_allennlp.common.enhanced import enhanced_graph, universal_enhanced_label
from seqgraph_allennlp.common.scoring import (
    count_enhanced_files,
    enhanced_report,
    enhanced_scores,
    main,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conllu"
ENHANCED = FIXTURES / "enhanced.conllu"
# ENHANCED with hand-made errors in DEPS (fixtures/conllu/README.md lists them)
PREDICTED = FIXTURES / "enhanced_predicted.conllu"
# ENHANCED written with its collapsed graphs (`deps=enhanced_graph(s)`): the gapping sentence's paths through
# the new empty node 3.1
EXPANDED = FIXTURES / "enhanced_expanded.conllu"
# an EWT sentence whose collapse gives paths back to their head: 4 -acl:relcl-> 6.1 -obj-> 4
SELF_LOOP = FIXTURES / "enhanced_self_loop.conllu"
UDVALIDATE = Path(sys.executable).parent / "udvalidate"

# (fixture, line the error must name, part of the problem's description)
DEPS_ERRORS = [
    ("bad_deps.conllu", 11, "malformed DEPS '3:nsubj|x': 'x' is not head:label"),
    ("deps_head_out_of_range.conllu", 11, "DEPS '6:nsubj': head 6 is outside the sentence (0..5)"),
    ("unsorted_deps.conllu", 10, "DEPS '4:nsubj:xsubj|2:nsubj' is not sorted by head, then label"),
]


def sentences(path=ENHANCED):
    return list(read_sentences(str(path)))


def conllu_rows(rows):
    """A sentence from `(id, form, head, deprel, deps)` rows, the other columns `_`."""
    return "".join(f"{i}\t{form}\t_\t_\t_\t_\t{head}\t{deprel}\t{deps}\t_\n" for i, form, head, deprel, deps in rows)


def write_graphs(sentence_list, path, collapsed=False):
    """The sentences written with their own trees and collapsed enhanced graphs (`deps=enhanced_graph(s)`)."""
    path.write_text(
        "".join(format_sentence(s, s.heads, s.deprels, deps=enhanced_graph(s), collapsed=collapsed)
                for s in sentence_list),
        encoding="utf-8",
    )
    return path


def udvalidate(path):
    """The return code and the incidents (`[Line ...`) of `udvalidate --lang en --level 2` on a file."""
    result = subprocess.run([str(UDVALIDATE), "--lang", "en", "--level", "2", str(path)],
                            capture_output=True, text=True)
    output = result.stdout + result.stderr
    return result.returncode, [line for line in output.splitlines() if line.startswith("[Line")]


def empty_node_lines(text):
    return [line for line in text.split("\n") if line and is_empty_node_line(line)]


# Reading and writing


def test_gold_round_trip_is_byte_exact():
    assert "".join(format_gold(sentence) for sentence in sentences()).encode("utf-8") == ENHANCED.read_bytes()


def test_a_graph_without_empty_nodes_writes_back_as_read():
    # several heads ("He", "those") and a directed cycle (7 -> 9 -> 7), no path label: no empty node is made
    relative_clause, control, gapping = sentences()
    for sentence in (relative_clause, control):
        written = format_sentence(sentence, sentence.heads, sentence.deprels, deps=enhanced_graph(sentence))
        assert written == format_gold(sentence)
        assert empty_node_lines(written) == []
    # with an empty node, the written graph has its own empty node (3.1 after its head, not the gold 7.1)
    written = format_sentence(gapping, gapping.heads, gapping.deprels, deps=enhanced_graph(gapping))
    assert written != format_gold(gapping)


def test_several_heads_and_a_directed_cycle():
    relative_clause, control, _ = sentences()
    graph = enhanced_graph(relative_clause)
    assert len(graph) == 11  # the multiword tokens `That's` and `don't` are not words
    # "those" heads the relative clause "who don't" and is its subject: 7 -> 9 -> 7; "who" refers to it
    assert graph[6] == [(5, "nmod:of"), (9, "nsubj")]
    assert graph[8] == [(7, "acl:relcl")]
    assert graph[7] == [(7, "ref")]
    # "He" is the subject of "trying", and by control of "buddy" and "impress"
    assert enhanced_graph(control)[0] == [(3, "nsubj"), (5, "nsubj:xsubj"), (9, "nsubj:xsubj")]


def test_gapping_collapse_of_the_empty_node():
    # "But I found the location wonderful and [7.1 found] the neighbors very kind.": 7.1 has the parent
    # 3 (conj) and the children 2 (nsubj), 7 (cc), 9 (obj), 11 (xcomp). By the script's rules each path
    # 3 -conj-> 7.1 -x-> w becomes the edge 3 -conj>x-> w, and 7.1 disappears with its own edges.
    gapping = sentences()[2]
    assert any(line.startswith("7.1\t") for line in gapping.lines)
    assert enhanced_graph(gapping) == [
        [(3, "cc")],
        [(3, "conj>nsubj"), (3, "nsubj"), (9, "nsubj")],
        [(0, "root")],
        [(5, "det")],
        [(3, "obj"), (6, "nsubj:xsubj")],
        [(3, "xcomp")],
        [(3, "conj>cc")],
        [(9, "det")],
        [(3, "conj>obj"), (11, "nsubj:xsubj")],
        [(11, "advmod")],
        [(3, "conj>xcomp")],
        [(3, "punct")],
    ]


# empty nodes in a chain (1.1 -> 1.2 -> 2.1), a cycle between two of them (1.2 <-> 2.1), a path back to its
# start (1 -> 1.1 -> 1), and a second empty node under another (3.1 -> 3.2)
CHAINS = """\
1\tA\t_\t_\t_\t_\t0\troot\t0:root|1.1:nsubj\t_
1.1\tE\t_\t_\t_\t_\t_\t_\t1:conj\t_
1.2\tE\t_\t_\t_\t_\t_\t_\t1.1:xcomp|2.1:dep\t_
2\tB\t_\t_\t_\t_\t1\tobj\t1.2:obj|2.1:nsubj\t_
2.1\tE\t_\t_\t_\t_\t_\t_\t1.2:ccomp\t_
3\tC\t_\t_\t_\t_\t1\tdep\t1:dep|2.1:obj|3.1:advmod\t_
3.1\tE\t_\t_\t_\t_\t_\t_\t3:parataxis|3.2:x\t_
3.2\tE\t_\t_\t_\t_\t_\t_\t3.1:y\t_
4\tD\t_\t_\t_\t_\t3\tdep\t3.1:nsubj|3.2:x\t_
"""


def test_collapse_through_chains_and_cycles_of_empty_nodes():
    # By the script's rules (and its output on this sentence): a path with words at both ends is kept even
    # when an empty node repeats on it (2: conj>xcomp>ccomp>dep>obj passes 1.2 twice) or when it returns to
    # its start (1: conj>nsubj, a self-loop), while a path with an empty end is not grown through a node it
    # already passes; paths through 3.1 <-> 3.2 take the cycle once.
    (sentence,) = parse_string(CHAINS)
    assert [format_deps(edges) for edges in enhanced_graph(sentence)] == [
        "0:root|1:conj>nsubj",
        "1:conj>xcomp>ccomp>dep>obj|1:conj>xcomp>ccomp>nsubj|1:conj>xcomp>obj",
        "1:conj>xcomp>ccomp>obj|1:dep|3:parataxis>advmod|3:parataxis>y>x>advmod",
        "3:parataxis>nsubj|3:parataxis>y>x|3:parataxis>y>x>nsubj",
    ]


def test_paths_are_written_through_empty_nodes():
    # the gapping sentence's four paths 3 -conj>x-> w share their start (3, conj): one empty node 3.1, written
    # right after word 3, with the parent 3:conj and the children 2, 7, 9, 11 (as the gold 7.1)
    written = "".join(format_sentence(s, s.heads, s.deprels, deps=enhanced_graph(s)) for s in sentences())
    assert written.encode("utf-8") == EXPANDED.read_bytes()
    gapping = written.split("\n\n")[2].split("\n")
    assert gapping[4:7] == [
        "3\tfound\tfind\tVERB\tVBD\tMood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin\t0\troot\t0:root\t_",
        "3.1\t_\t_\t_\t_\t_\t_\t_\t3:conj\t_",
        "4\tthe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t5\tdet\t5:det\t_",
    ]
    assert [line.split("\t")[8] for line in gapping if line.split("\t")[0] in ("2", "7", "9", "11")] == [
        "3:nsubj|3.1:nsubj|9:nsubj", "3.1:cc", "3.1:obj|11:nsubj:xsubj", "3.1:xcomp",
    ]
    # read back, the written file collapses into the same graphs
    assert [enhanced_graph(s) for s in parse_string(written)] == [enhanced_graph(s) for s in sentences()]


def test_a_path_back_to_its_head():
    # "i have tried EVERYTHING i can [6.1 try] ...": 4 -acl:relcl-> 6.1 -obj-> 4 collapses into the self-loop
    # (4, acl:relcl>obj), written back as the cycle 4 -acl:relcl-> 4.1 -obj-> 4 (a self-loop in DEPS is invalid)
    (sentence,) = read_sentences(str(SELF_LOOP))
    graph = enhanced_graph(sentence)
    assert graph[3] == [(3, "obj"), (4, "acl:relcl>obj")]
    written = format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph)
    lines = written.split("\n")
    assert lines[5].split("\t")[:1] + lines[5].split("\t")[8:] == ["4", "3:obj|4.1:obj", "_"]
    assert lines[6] == "4.1\t_\t_\t_\t_\t_\t_\t_\t4:acl:relcl\t_"
    assert empty_node_lines(written) == [lines[6]]
    assert enhanced_graph(parse_string(written)[0]) == graph


def test_paths_with_a_common_start_share_their_empty_nodes():
    # (4, conj>nsubj) on 6 and (4, conj>obj) on 7 go through one node 4.1; the longer paths (4, conj>xcomp>...)
    # through 4.1 and then one node 4.2 under it; another start (2, parataxis) has its own node 2.1
    graph = [
        [(2, "parataxis>obj")], [(4, "nsubj")], [(4, "conj>xcomp>nsubj")], [(0, "root")],
        [(4, "conj>xcomp>obj"), (4, "obj")], [(4, "conj>nsubj")], [(4, "conj>obj")],
    ]
    words, empty_nodes = expand_paths(graph)
    assert empty_nodes == [
        ("2.1", [("2", "parataxis")]),
        ("4.1", [("4", "conj")]),
        ("4.2", [("4.1", "xcomp")]),
    ]
    assert words == [
        [("2.1", "obj")], [("4", "nsubj")], [("4.2", "nsubj")], [("0", "root")],
        [("4", "obj"), ("4.2", "obj")], [("4.1", "nsubj")], [("4.1", "obj")],
    ]
    # without path labels, the graph as it is, heads as ids
    assert expand_paths([[(0, "root"), (2, "dep")], [(1, "obj")]]) == (
        [[("0", "root"), ("2", "dep")], [("1", "obj")]], []
    )
    rows = conllu_rows([(i, f"w{i}", 0 if i == 4 else 4, "dep", "_") for i in range(1, 8)])
    (sentence,) = parse_string(rows)
    written = format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph)
    assert [line.split("\t")[0] for line in written.split("\n") if line] == [
        "1", "2", "2.1", "3", "4", "4.1", "4.2", "5", "6", "7"
    ]
    assert enhanced_graph(parse_string(written)[0]) == graph


def test_empty_nodes_are_placed_before_the_next_token_line(tmp_path):
    # "That's still the domain of those who don't.": paths from the root, from word 2 (the end of `1-2`),
    # from word 8 (before `9-10`) and from word 9 (inside `9-10`); the file validates and reads back the same
    relative_clause = sentences()[0]
    graph = [list(edges) for edges in enhanced_graph(relative_clause)]
    graph[2] = sorted(graph[2] + [(0, "root>discourse")])
    graph[3] = sorted(graph[3] + [(2, "conj>obj")])
    graph[10] = sorted(graph[10] + [(8, "conj>punct")])
    graph[9] = sorted(graph[9] + [(9, "conj>advmod")])
    written = format_sentence(relative_clause, relative_clause.heads, relative_clause.deprels, deps=graph)
    assert [line.split("\t")[0] for line in written.split("\n") if line and not line.startswith("#")] == [
        "0.1", "1-2", "1", "2", "2.1", "3", "4", "5", "6", "7", "8", "8.1", "9-10", "9", "9.1", "10", "11"
    ]
    assert empty_node_lines(written)[0] == "0.1\t_\t_\t_\t_\t_\t_\t_\t0:root\t_"
    assert enhanced_graph(parse_string(written)[0]) == graph
    path = tmp_path / "placed.conllu"
    path.write_text(written, encoding="utf-8")
    assert udvalidate(path) == (0, [])


def test_random_graphs_read_back_as_written():
    # any graph of paths (shared starts, nested paths, self-loops, cycles, root paths) collapses back into itself
    generator = random.Random(20261126)
    labels = ["nsubj", "obj", "conj", "xcomp", "acl:relcl"]
    for _ in range(300):
        num_words = generator.randint(1, 7)
        graph = []
        for _ in range(num_words):
            edges = {(generator.randint(0, num_words),
                      ">".join(generator.choice(labels) for _ in range(generator.choice([1, 1, 2, 2, 3]))))
                     for _ in range(generator.randint(1, 3))}
            graph.append(sorted(edges))
        (sentence,) = parse_string(conllu_rows([(i, f"w{i}", "_", "_", "_") for i in range(1, num_words + 1)]))
        written = format_sentence(sentence, sentence.heads, sentence.deprels, deps=graph)
        assert enhanced_graph(parse_string(written)[0]) == graph, written
        assert all(">" not in line for line in written.split("\n"))


def test_expand_paths_refuses_what_it_cannot_write():
    for graph, problem in [
        ([[(3, "nsubj")], [(0, "root")]], r"enhanced edge \(3, 'nsubj'\) of word 1: the head is not a word id in 0..2"),
        ([[(-1, "nsubj")]], "the head is not a word id in 0..1"),
        ([[("1.1", "nsubj")]], "the head is not a word id in 0..1"),
        ([[(0, "conj>")]], r"enhanced edge \(0, 'conj>'\) of word 1: a path label needs a relation at each step"),
        ([[(0, ">nsubj")]], "a path label needs a relation at each step"),
        ([[(0, "conj>>nsubj")]], "a path label needs a relation at each step"),
    ]:
        with pytest.raises(ValueError, match=problem):
            expand_paths(graph)


def test_no_enhanced_annotation_is_none():
    (sentence,) = parse_string(conllu_rows([(1, "Hi", 0, "root", "_"), (2, "you", 1, "vocative", "_")]))
    assert enhanced_graph(sentence) is None
    assert format_sentence(sentence, [0, 1], ["root", "vocative"], deps=[[], [(1, "vocative")]]).split("\n")[0] == (
        "1\tHi\t_\t_\t_\t_\t0\troot\t_\t_"  # a word without enhanced heads: `_`
    )


# Errors


@pytest.mark.parametrize("name, line, problem", DEPS_ERRORS)
def test_bad_deps_fixtures_raise_at_their_line(name, line, problem):
    path = FIXTURES / name
    first, second = sentences(path)  # the file reads: DEPS is checked by `enhanced_graph`
    assert enhanced_graph(first) is not None
    with pytest.raises(ConlluError) as error:
        enhanced_graph(second)
    assert str(error.value).startswith(f"{path}:{line}: {problem}")
    assert error.value.line_number == line and "\n" not in str(error.value)


@pytest.mark.parametrize(
    "deps, problem",
    [
        ("2:", "malformed DEPS '2:': '2:' is not head:label"),
        ("a:nsubj", "malformed DEPS 'a:nsubj'"),
        ("2:nsubj||2:obj", "malformed DEPS '2:nsubj||2:obj': '' is not head:label"),
        ("02:nsubj", "malformed DEPS '02:nsubj'"),
        ("2.1:nsubj", "DEPS '2.1:nsubj': head 2.1 is not an empty node of the sentence"),
        ("2:nsubj|2:nsubj", "DEPS '2:nsubj|2:nsubj' repeats 2:nsubj"),
        ("2:obj|2:nsubj", "DEPS '2:obj|2:nsubj' is not sorted by head, then label: 2:nsubj comes after 2:obj"),
    ],
)
def test_malformed_deps_raise_at_the_word(deps, problem):
    text = conllu_rows([(1, "Hi", 2, "discourse", deps), (2, "there", 0, "root", "0:root")])
    (sentence,) = parse_string(text, "x.conllu")
    with pytest.raises(ConlluError, match="^x.conllu:1: " + problem.replace("|", r"\|").replace(".", r"\.")):
        enhanced_graph(sentence)


def test_a_partly_annotated_sentence_is_an_error():
    text = "# sent_id = s\n" + conllu_rows([(1, "Hi", 2, "discourse", "2:discourse"), (2, "there", 0, "root", "_")])
    (sentence,) = parse_string(text, "x.conllu")
    with pytest.raises(ConlluError, match="^x.conllu:3: word 2 has no DEPS .* but word 1 at line 2 has"):
        enhanced_graph(sentence)


# Writing


def test_format_deps_sorts_by_head_then_label():
    assert format_deps([(9, "nsubj"), (3, "nsubj"), (3, "conj>nsubj"), (3, "nsubj")]) == "3:conj>nsubj|3:nsubj|9:nsubj"
    assert format_deps([(12, "obj"), (2, "obj")]) == "2:obj|12:obj"  # numerically, not as text
    # empty node ids as UD sorts them (2 < 2.2 < 2.10 < 3), a head as int or id string the same head
    assert format_deps([("3", "x"), ("2.10", "a"), ("2.2", "b"), (2, "c"), ("2", "c"), ("2.2", "a")]) == (
        "2:c|2.2:a|2.2:b|2.10:a|3:x"
    )
    for bad in [(1, ""), (1, "a b"), (1, "a|b"), (-1, "root"), ("2.0", "x"), ("02", "x"), ("a", "x"),
                (1.5, "x"), (True, "x"), (None, "x"), (1, None)]:
        with pytest.raises(ValueError, match="cannot write enhanced edge"):
            format_deps([bad])


def test_universal_enhanced_label_cuts_each_step_as_udeval():
    assert universal_enhanced_label("nsubj") == "nsubj"
    assert universal_enhanced_label("obl:in") == "obl"
    assert universal_enhanced_label("nmod:poss") == "nmod"
    assert universal_enhanced_label("conj:and>nsubj:pass") == "conj>nsubj"
    assert universal_enhanced_label("conj>obl:npmod") == "conj>obl"


def test_validator_accepts_the_written_graphs(tmp_path):
    # every graph as written, the gapping sentence's paths and the self-loop's included, passes level 2
    with_paths = write_graphs(sentences() + sentences(SELF_LOOP), tmp_path / "written.conllu")
    assert with_paths.read_text(encoding="utf-8").count(">") == 0
    no_graph = tmp_path / "no_graph.conllu"
    no_graph.write_text("".join(format_sentence(s, s.heads, s.deprels) for s in sentences()), encoding="utf-8")
    for path in (ENHANCED, SELF_LOOP, with_paths, no_graph):
        assert udvalidate(path) == (0, []), path
    # what it would be without the empty nodes: a collapsed path label (`3:conj>nsubj`) is not a valid UD
    # relation, and the validator refuses exactly those (the IWPT tasks validated files before collapsing them)
    collapsed = write_graphs(sentences(), tmp_path / "collapsed.conllu", collapsed=True)
    returncode, incidents = udvalidate(collapsed)
    assert returncode != 0 and len(incidents) == 4
    assert all("invalid-edeprel" in incident and ":conj>" in incident for incident in incidents)


# Scoring


def test_identical_files_score_1():
    assert enhanced_scores(str(ENHANCED), str(ENHANCED)) == {"ELAS": 1.0, "EULAS": 1.0}
    counts = count_enhanced_files(str(ENHANCED), str(ENHANCED))
    # 12 + 14 + 16 edges, the gapping sentence's counted after the collapse
    assert counts.gold_edges == counts.predicted_edges == counts.labeled_correct == counts.universal_correct == 42


def test_a_hand_edited_prediction():
    # gold: 42 edges (12 + 14 + 16). The prediction (fixtures/conllu/README.md) has 40: it drops
    # 5:nsubj:xsubj and 9:nsubj:xsubj of "He" and 3:conj>nsubj of "I", and adds 9:punct to ".". Of its 40,
    # 5 are wrong for ELAS: 5:nmod (gold nmod:of), 9:nsubj of "who" (gold 7:ref), 3:conj:and>obj (gold
    # conj>obj), 3:xcomp (gold conj>xcomp), 9:punct; EULAS forgives the first and the third.
    # ELAS = 2 * 35 / (42 + 40), EULAS = 2 * 37 / (42 + 40).
    expected = {"ELAS": 70 / 82, "EULAS": 74 / 82}
    assert enhanced_scores(str(ENHANCED), str(PREDICTED)) == pytest.approx(expected, abs=1e-12)
    counts = count_enhanced_files(str(ENHANCED), str(PREDICTED))
    assert (counts.gold_edges, counts.predicted_edges, counts.labeled_correct, counts.universal_correct) == (
        42, 40, 35, 37
    )
    assert counts.scores() == pytest.approx(expected, abs=1e-12)


def test_the_command_line_reports_elas_and_eulas(capsys):
    assert main([str(ENHANCED), str(PREDICTED)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == [
        "ELAS: 0.853659 (F1: 35 right of 42 gold and 40 predicted enhanced edges)",
        "EULAS: 0.902439 (F1: 37 right on universal labels of 42 gold and 40 predicted enhanced edges)",
        f"scorer: ELAS, EULAS by {scoring.ENHANCED_SCORER}",
    ]
    assert main([str(ENHANCED), str(PREDICTED), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["ELAS"] == pytest.approx(70 / 82) and printed["EULAS"] == pytest.approx(74 / 82)
    assert printed["enhanced_scorer"] == scoring.ENHANCED_SCORER and printed["UAS"] == 1.0


def test_a_prediction_without_graph_is_not_scored_for_elas(tmp_path, capsys):
    # what the predictor writes for a tree: DEPS `_` everywhere (format_sentence's default)
    no_graph = tmp_path / "tree_only.conllu"
    no_graph.write_text("".join(format_sentence(s, s.heads, s.deprels) for s in sentences()), encoding="utf-8")
    with pytest.raises(ValueError, match="the prediction has no enhanced graph"):
        enhanced_scores(str(ENHANCED), str(no_graph))
    assert main([str(ENHANCED), str(no_graph)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (
        "ELAS, EULAS: not scored: the prediction has no enhanced graph (DEPS is _ on every word)"
    )
    assert "ELAS: 0" not in out and "EULAS: 0" not in out
    assert main([str(ENHANCED), str(no_graph), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "ELAS" not in printed and "EULAS" not in printed
    assert printed["enhanced_not_scored"].startswith("the prediction has no enhanced graph")
    # neither file with a graph: nothing about it
    assert enhanced_report(str(no_graph), str(no_graph))[1] == {}


def test_repeated_universal_labels_are_counted_as_udeval_counts_them(tmp_path):
    # "at" has two edges from "sat" whose universal labels are both obl: udeval matches the gold obl:in
    # with both (2 matches of 1 gold and 2 predicted edges), this module's count once
    gold = tmp_path / "gold.conllu"
    gold.write_text(conllu_rows([(1, "sat", 0, "root", "0:root"), (2, "in", 3, "case", "3:case"),
                                 (3, "it", 1, "obl", "1:obl:in")]) + "\n", encoding="utf-8")
    predicted = tmp_path / "predicted.conllu"
    predicted.write_text(gold.read_text().replace("1:obl:in", "1:obl:in|1:obl:on"), encoding="utf-8")
    counts, report = enhanced_report(str(gold), str(predicted))
    assert counts.universal_repeats == 1
    assert report["ELAS"] == pytest.approx(2 * 3 / 7)
    assert report["EULAS"] == pytest.approx(2 * 4 / 7) and report["EULAS_matched_once"] == pytest.approx(2 * 3 / 7)


def test_a_disagreement_with_udeval_is_an_error(monkeypatch):
    monkeypatch.setattr(scoring, "enhanced_scores", lambda *paths: {"ELAS": 0.5, "EULAS": 74 / 82})
    with pytest.raises(ValueError, match=r"ELAS 0.853659 here but 0.500000 by the CoNLL 2018 evaluation"):
        enhanced_report(str(ENHANCED), str(PREDICTED))


def test_udeval_refusals_name_the_original_file_and_line(tmp_path):
    # two root words in the gapping sentence: udeval refuses it at the blank line that ends the sentence,
    # line 46 of the file (45 of the collapsed copy that udeval reads, without the empty node)
    but = "\n1\tBut\tbut\tCCONJ\tCC\t_\t"
    text = ENHANCED.read_text(encoding="utf-8").replace(but + "3\t", but + "0\t")
    assert text != ENHANCED.read_text(encoding="utf-8")
    predicted = tmp_path / "two_roots.conllu"
    predicted.write_text(text, encoding="utf-8")
    with pytest.raises(ConlluError, match=rf"^{predicted}:46: .*multiple roots in the sentence that ends at 46$"):
        enhanced_scores(str(ENHANCED), str(predicted))
