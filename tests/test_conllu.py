import inspect
from pathlib import Path

import pytest

from seqgraph_allennlp.common.conllu import (
    KEEP_DEPS,
    ConlluError,
    ConlluSentence,
    ConlluWord,
    check_complete_columns,
    check_tree,
    find_tree_problem,
    format_gold,
    format_sentence,
    parse_lines,
    parse_string,
    read_sentences,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conllu"
EN_SMALL = FIXTURES / "en_small.conllu"

# (fixture, line the error must name, part of the problem's description)
FORMAT_ERRORS = [
    ("bad_columns.conllu", 11, "expected 10 tab-separated columns, found 9"),
    ("bad_id.conllu", 11, "invalid ID '2a': expected N, N-M or N.M"),
    ("bad_head.conllu", 11, "invalid HEAD 'root' for word 2: expected an integer or '_'"),
    ("head_out_of_range.conllu", 13, "HEAD 5 of word 4 is outside the sentence (0..4)"),
]
TREE_ERRORS = [
    ("cycle.conllu", 12, "sentence starting at line 8 is not a tree: cycle 3 -> 4 -> 3"),
    ("no_root.conllu", 10, "sentence starting at line 8 is not a tree: no word has head 0"),
    ("two_roots.conllu", 12, "sentence starting at line 8 is not a tree: 2 words have head 0: 2, 3"),
]


def write_all(sentences):
    return "".join(format_gold(sentence) for sentence in sentences)


def test_reads_sentences_words_and_line_numbers():
    sentences = list(read_sentences(str(EN_SMALL)))
    assert [len(sentence) for sentence in sentences] == [7, 5, 16, 33, 11, 6]
    file_lines = EN_SMALL.read_text(encoding="utf-8").split("\n")
    for sentence in sentences:
        assert sentence.file_path == str(EN_SMALL)
        assert len(sentence.lines) == len(sentence.line_numbers)
        # Every raw line is exactly the file's line at the recorded (1-based) number.
        for line, number in zip(sentence.lines, sentence.line_numbers):
            assert file_lines[number - 1] == line
        assert [word.id for word in sentence.words] == list(range(1, len(sentence) + 1))
        assert sentence.has_heads and sentence.has_gold_tree

    first = sentences[0]
    assert first.start_line == 1
    assert first.metadata["sent_id"].endswith("172713-0001")
    assert first.sent_id == first.metadata["sent_id"]
    assert first.text == "From the AP comes this story :"
    assert "newdoc id" in first.metadata
    assert first.forms == ["From", "the", "AP", "comes", "this", "story", ":"]
    assert first.heads == [3, 3, 4, 0, 6, 4, 4]
    assert first.deprels == ["case", "det", "obl", "root", "det", "nsubj", "punct"]
    assert first.upos[:3] == ["ADP", "DET", "PROPN"]
    assert first.xpos[:3] == ["IN", "DT", "NNP"]
    assert len(first.comments) == 4


def test_multiword_tokens_and_empty_nodes_are_kept_but_not_words():
    sentences = list(read_sentences(str(EN_SMALL)))
    we_ve = sentences[1]
    assert we_ve.start_line == 13
    assert we_ve.lines[2] == "1-2\tWe've\t_\t_\t_\t_\t_\t_\t_\t_"
    assert we_ve.forms == ["We", "'ve", "moved", "on", "."]
    assert we_ve.words[0] == ConlluWord(
        id=1,
        form="We",
        lemma="we",
        upos="PRON",
        xpos="PRP",
        feats="Case=Nom|Number=Plur|Person=1|PronType=Prs",
        head=3,
        deprel="nsubj",
        deps="3:nsubj",
        misc="_",
        line_number=16,
    )
    assert not we_ve.words[3].space_after and we_ve.words[2].space_after

    empty_node = sentences[3]
    assert "8.1\twrite\twrite\tVERB\tVB\tVerbForm=Inf\t_\t_\t8:xcomp\tCopyOf=5" in empty_node.lines
    assert "write" in empty_node.forms and empty_node.forms.count("write") == 1
    assert len(empty_node.lines) == 2 + 33 + 1  # comments, words, the empty node


def test_round_trip_is_byte_identical():
    sentences = read_sentences(str(EN_SMALL))
    assert write_all(sentences).encode("utf-8") == EN_SMALL.read_bytes()


@pytest.mark.parametrize("deps", [None, KEEP_DEPS])
def test_format_sentence_replaces_only_head_and_deprel_and_deps(deps):
    sentence = list(read_sentences(str(EN_SMALL)))[1]
    heads = [0, 1, 2, 3, 4]
    deprels = ["a", "b", "c", "d", "e"]
    written = format_sentence(sentence, heads, deprels, deps=deps)
    assert written.endswith("\n\n") and not written.endswith("\n\n\n")
    out_lines = written[:-2].split("\n")
    assert len(out_lines) == len(sentence.lines)
    word = 0
    for original, new in zip(sentence.lines, out_lines):
        if original.startswith("#") or not original.split("\t")[0].isdigit():
            assert new == original  # comments and the 1-2 range untouched
            continue
        old_columns, new_columns = original.split("\t"), new.split("\t")
        assert new_columns[6] == str(heads[word]) and new_columns[7] == deprels[word]
        assert new_columns[:6] == old_columns[:6] and new_columns[9] == old_columns[9]
        # the input's enhanced graph only where asked for: it does not belong to the new tree
        assert new_columns[8] == (old_columns[8] if deps is KEEP_DEPS else "_")
        assert old_columns[8] != "_"
        word += 1
    assert word == 5


def test_format_sentence_drops_empty_nodes_unless_keeping_deps():
    sentence = list(read_sentences(str(EN_SMALL)))[3]
    empty_node = "8.1\twrite\twrite\tVERB\tVB\tVerbForm=Inf\t_\t_\t8:xcomp\tCopyOf=5"
    assert empty_node in sentence.lines
    kept = format_sentence(sentence, sentence.heads, sentence.deprels, deps=KEEP_DEPS)
    assert kept == format_gold(sentence) and empty_node in kept.split("\n")
    # the input without its empty node, DEPS `_` on every word (an empty graph writes `_` too)
    expected = []
    for line in sentence.lines:
        columns = line.split("\t")
        if columns[0].isdigit():
            columns[8] = "_"
        if line != empty_node:
            expected.append("\t".join(columns))
    assert len(expected) == len(sentence.lines) - 1
    for deps in (None, [[] for _ in sentence.words]):
        assert format_sentence(sentence, sentence.heads, sentence.deprels, deps=deps) == "\n".join(expected) + "\n\n"


def test_format_sentence_writes_an_enhanced_graph_sorted():
    text = "1\tHi\t_\t_\t_\t_\t0\troot\t0:root\t_\n2\tyou\t_\t_\t_\t_\t1\tvocative\t1:vocative\t_\n"
    (sentence,) = parse_string(text)
    graph = [[(2, "dep"), (0, "root")], [(1, "obj"), (1, "conj>nsubj")]]
    # the path label is written as the path it collapses: 1 -conj-> 1.1 -nsubj-> 2, the empty node after word 1
    assert format_sentence(sentence, [0, 1], ["root", "obj"], deps=graph) == (
        "1\tHi\t_\t_\t_\t_\t0\troot\t0:root|2:dep\t_\n"
        "1.1\t_\t_\t_\t_\t_\t_\t_\t1:conj\t_\n"
        "2\tyou\t_\t_\t_\t_\t1\tobj\t1:obj|1.1:nsubj\t_\n\n"
    )
    # collapsed, as the ELAS scoring gives udeval: the label as it is, no empty node
    assert format_sentence(sentence, [0, 1], ["root", "obj"], deps=graph, collapsed=True) == (
        "1\tHi\t_\t_\t_\t_\t0\troot\t0:root|2:dep\t_\n2\tyou\t_\t_\t_\t_\t1\tobj\t1:conj>nsubj|1:obj\t_\n\n"
    )
    with pytest.raises(ValueError, match="2 words but got an enhanced graph of 1 words"):
        format_sentence(sentence, [0, 1], ["root", "obj"], deps=graph[:1])


def test_format_sentence_writes_none_as_underscore_and_checks_lengths():
    sentence = parse_string("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n")[0]
    assert format_sentence(sentence, [None], [None]) == "1\tHi\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
    with pytest.raises(ValueError, match="1 words but got 2 heads"):
        format_sentence(sentence, [0, 1], ["root", "x"])


def test_format_sentence_replaces_upos_when_given():
    (sentence,) = parse_string("# c\n1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\tSpaceAfter=No\n")
    assert format_sentence(sentence, [0], ["root"]) == "# c\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No\n\n"
    assert format_sentence(sentence, [0], ["root"], ["X"]) == "# c\n1\tHi\thi\tX\tUH\t_\t0\troot\t_\tSpaceAfter=No\n\n"
    with pytest.raises(ValueError, match="1 words but got 2 UPOS tags"):
        format_sentence(sentence, [0], ["root"], ["X", "Y"])


def test_file_without_final_blank_line(tmp_path):
    text = EN_SMALL.read_text(encoding="utf-8")
    for ending in ("\n", ""):
        path = tmp_path / "no_final_blank.conllu"
        path.write_text(text.rstrip("\n") + ending, encoding="utf-8")
        assert write_all(read_sentences(str(path))) == text

    raw = FIXTURES / "no_heads.conllu"
    assert write_all(read_sentences(str(raw))) == raw.read_text(encoding="utf-8") + "\n"


def test_crlf_is_normalised_to_lf(tmp_path):
    text = EN_SMALL.read_text(encoding="utf-8")
    path = tmp_path / "crlf.conllu"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    sentences = list(read_sentences(str(path)))
    assert all("\r" not in line for sentence in sentences for line in sentence.lines)
    assert [s.line_numbers for s in sentences] == [s.line_numbers for s in read_sentences(str(EN_SMALL))]
    assert write_all(sentences) == text
    assert write_all(parse_string(text.replace("\n", "\r\n"))) == text
    assert write_all(parse_lines(text.replace("\n", "\r\n").splitlines(keepends=True))) == text


def test_utf8_bom_is_dropped(tmp_path):
    text = EN_SMALL.read_text(encoding="utf-8")
    path = tmp_path / "bom.conllu"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    sentences = list(read_sentences(str(path)))
    assert sentences[0].lines[0].startswith("# newdoc id")
    assert write_all(sentences) == text
    assert parse_string("\ufeff" + text)[0].lines[0].startswith("# newdoc id")


def test_blank_line_runs_and_whitespace_lines_separate_sentences():
    text = "\n\n1\tA\t_\t_\t_\t_\t0\troot\t_\t_\n \t\n\n\n1\tB\t_\t_\t_\t_\t0\troot\t_\t_\n"
    sentences = parse_string(text, "x.conllu")
    assert [s.forms for s in sentences] == [["A"], ["B"]]
    assert [s.line_numbers for s in sentences] == [[3], [7]]


def test_unicode_line_separator_inside_a_form_is_not_a_line_break():
    sentence = parse_string("1\ta\u2028b\t_\t_\t_\t_\t0\troot\t_\t_\n")[0]
    assert sentence.forms == ["a\u2028b"]


def test_empty_input_has_no_sentences(tmp_path):
    assert list(read_sentences(str(FIXTURES / "empty.conllu"))) == []
    assert parse_string("") == []
    assert parse_string("\n\n  \n") == []


def test_no_heads_means_no_gold_tree():
    sentences = list(read_sentences(str(FIXTURES / "no_heads.conllu")))
    assert [s.forms for s in sentences] == [["I", "ca", "n't", "come", "today", "."], ["See", "you"]]
    assert all(s.heads == [None] * len(s) for s in sentences)
    assert not any(s.has_heads or s.has_gold_tree for s in sentences)
    assert "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_" in sentences[0].lines
    check_tree(sentences[0])  # nothing to check: no error


@pytest.mark.parametrize("name, line, problem", FORMAT_ERRORS)
def test_malformed_files_raise_conllu_error_naming_file_and_line(name, line, problem):
    path = str(FIXTURES / name)
    sentences = read_sentences(path)
    first = next(sentences)  # the valid first sentence comes out before the error: reading is lazy
    assert first.forms == ["Thanks", "a", "lot", "."]
    with pytest.raises(ConlluError) as info:
        next(sentences)
    message = str(info.value)
    assert message == f"{path}:{line}: {problem}"
    assert name in message and "\n" not in message
    assert info.value.line_number == line and info.value.file_path == path
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name, line, problem", TREE_ERRORS)
def test_tree_errors_are_found_by_check_tree(name, line, problem):
    path = str(FIXTURES / name)
    first, second = read_sentences(path)  # reading alone does not check tree shape
    check_tree(first)
    with pytest.raises(ConlluError) as info:
        check_tree(second)
    assert str(info.value) == f"{path}:{line}: {problem}"


def word(token_id, head="0", columns=10):
    return "\t".join([token_id, "w", "_", "_", "_", "_", head, "dep", "_", "_", ""][:columns]) + "\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (word("1") + word("3", "1"), "s.conllu:2: word id 3 out of order: expected 2"),
        (word("1") + word("1", "1"), "s.conllu:2: word id 1 out of order: expected 2"),
        (word("0"), "s.conllu:1: word id 0 out of order: expected 1"),
        (word("_"), "s.conllu:1: invalid ID '_'"),
        (word("1.5.2"), "s.conllu:1: invalid ID '1.5.2'"),
        (word("2-1", "_"), "s.conllu:1: invalid ID '2-1'"),
        (word("1", "-1"), "s.conllu:1: HEAD -1 of word 1 is outside the sentence (0..1)"),
        (word("1", "1.1"), "s.conllu:1: invalid HEAD '1.1' for word 1"),
        (word("1", columns=9), "s.conllu:1: expected 10 tab-separated columns, found 9"),
        (word("1", columns=11), "s.conllu:1: expected 10 tab-separated columns, found 11"),
        ("1  A  _  _  _  _  0  root  _  _\n", "s.conllu:1: expected 10 tab-separated columns, found 1"),
        ("# sent_id = 1\n# text = nothing\n\n", "s.conllu:1: sentence has no word lines"),
        ("# a\n" + word("1-2", "_"), "s.conllu:1: sentence has no word lines"),
    ],
)
def test_more_format_errors(text, message):
    with pytest.raises(ConlluError) as info:
        parse_string(text, "s.conllu")
    assert str(info.value).startswith(message)


def annotated(token_id, upos="_", head="_", deprel="_"):
    return "\t".join([token_id, "w", "_", upos, "_", "_", head, deprel, "_", "_"]) + "\n"


@pytest.mark.parametrize(
    "text, columns, message",
    [
        (annotated("1", head="0", deprel="root") + annotated("2", deprel="dep"), ("head", "deprel"),
         "s.conllu:2: word 2 has no HEAD ('_') but word 1 at line 1 has: HEAD must be given on every word of "
         "the sentence or on none"),
        (annotated("1", head="2") + annotated("2", head="0", deprel="root"), ("head", "deprel"),
         "s.conllu:1: word 1 has no DEPREL ('_') but word 2 at line 2 has: DEPREL must be given on every word "
         "of the sentence or on none"),
        (annotated("1", "NOUN", "0", "root") + annotated("2", "_", "1", "dep"), ("upos",),
         "s.conllu:2: word 2 has no UPOS ('_') but word 1 at line 1 has: UPOS must be given on every word of "
         "the sentence or on none"),
    ],
)  # fmt: skip
def test_a_column_given_on_some_words_only(text, columns, message):
    (sentence,) = parse_string(text, "s.conllu")  # reading alone does not check it (predictions may lack heads)
    with pytest.raises(ConlluError) as info:
        check_complete_columns(sentence, columns)
    assert str(info.value) == message


def test_a_column_on_every_word_or_on_none_is_complete():
    gold, raw = parse_string(annotated("1", "NOUN", "0", "root") + "\n" + annotated("1"))
    for sentence in (gold, raw):
        check_complete_columns(sentence, ("head", "deprel", "upos", "xpos"))
    # UPOS is not checked unless asked for
    (partial_upos,) = parse_string(annotated("1", "NOUN", "0", "root") + annotated("2", "_", "1", "dep"))
    check_complete_columns(partial_upos)


def test_an_error_about_a_whole_file_names_no_line():
    error = ConlluError("x.conllu", None, "no sentences: the file is empty")
    assert str(error) == "x.conllu: no sentences: the file is empty" and error.line_number is None


def test_find_tree_problem():
    assert find_tree_problem([0]) is None
    assert find_tree_problem([3, 3, 4, 0, 6, 4, 4]) is None
    assert find_tree_problem([2, 0, 1]) is None  # non-projective shapes are trees too
    assert find_tree_problem([0, 2]) == (2, "cycle 2 -> 2")
    assert find_tree_problem([0, 5, 2, 3, 4]) == (2, "cycle 2 -> 5 -> 4 -> 3 -> 2")
    assert find_tree_problem([2, 1]) == (1, "no word has head 0")
    assert find_tree_problem([0, 0, 0]) == (2, "3 words have head 0: 1, 2, 3")


def test_non_projective_sentence_is_a_tree():
    sentence = list(read_sentences(str(EN_SMALL)))[4]
    assert sentence.sent_id == "reviews-249889-0002"
    heads = sentence.heads
    # compared (5) -> great (1) crosses knowledge (2) -> root.
    assert heads[4] == 1 and heads[1] == 0
    check_tree(sentence)


def test_sentence_reading_is_lazy():
    assert inspect.isgeneratorfunction(read_sentences)
    assert inspect.isgeneratorfunction(parse_lines)
    assert isinstance(next(read_sentences(str(EN_SMALL))), ConlluSentence)


def test_a_latin1_file_is_a_one_line_error_at_its_first_bad_line(tmp_path):
    path = tmp_path / "latin1.conllu"
    lines = ["# text = fine", "1\tfine\t_\t_\t_\t_\t0\troot\t_\t_", "", "# text = caf\xe9", "1\tcaf\xe9\t_\t_\t_\t_\t0\troot\t_\t_", ""]
    path.write_bytes("\n".join(lines).encode("latin-1"))
    with pytest.raises(ConlluError, match=r"latin1\.conllu:4: not UTF-8 \(byte 0xe9\)"):
        list(read_sentences(str(path)))
