"""
What the predictor does to a predicted enhanced graph from the words and the tree: the lexical part of the labels
filled in (`fill_lexical_labels`), and the tree edges that enhanced UD replaces taken out
(`drop_replaced_tree_edges`).

The lexical part of enhanced UD labels filled from the words, as the IWPT 2020/2021 systems filled it:
`obl:in`, `nmod:of`, `advcl:if`, `conj:and` carry the case marker, subordinator or coordinator of the
dependent (its `case`, `mark` or `cc` child in the basic tree), lower-cased, with the words of a `fixed`
expression joined by `_` (`because_of`). A parser that predicts full enhanced labels from a closed
vocabulary cannot write a marker it never saw in training; filling writes any. Which of the two is better is
measured in `scripts/enhanced_rules.py` (`results/enhanced/enhanced_rules.json`).

The rule, as UD English-EWT's enhanced layer is built (counted on its training set by that script):

* only the relations `obl`, `nmod`, `advcl`, `acl` (markers: `case`, then `mark` for the clausal two) and
  `conj` (marker: the `cc` of the conjunct, or of a later conjunct of the same head: "A, B and C" gives
  `conj:and` to B too);
* a label whose subtype is a basic one (`nmod:poss`, `obl:unmarked`, `acl:relcl`: the basic relations given)
  is left alone, as are collapsed paths (`conj>nsubj`);
* of several markers of one kind, the nearest before the word (`out of the box`: `obl:of`; `based on`:
  `obl:on`), else the first after it;
* an `advcl` without a `mark` or `case` is marked by a `when` or `where` before it in `advmod` ("came out
  when they arrested": `advcl:when`);
* a marker that is a verb is written as its form, not its lemma (`nmod:including`, `obl:given`);
* an edge that a conjunct shares with its first conjunct (any edge but its tree edge, "in Mosul, Baiji and
  Tuz": `obl:in` for all three) takes, if the conjunct has no marker of its own, the marker of the
  nearest conjunct up its `conj` chain that has one;
* a word with no marker keeps its label.
"""
from typing import Dict, List, Optional, Sequence, Set

from seqgraph_allennlp.common.deps import PATH_SEPARATOR
from seqgraph_allennlp.common.enhanced import EnhancedGraph

# each relation whose subtype is lexical, and the basic relations of its markers, in order of preference
MARKERS: Dict[str, Sequence[str]] = {
    "obl": ("case",),
    "nmod": ("case",),
    "advcl": ("mark", "case"),
    "acl": ("mark", "case"),
    "conj": ("cc",),
}
# `advmod` words that mark an `advcl` without `mark` or `case` (EWT train: `advcl:when` on 335 of the 342
# such edges with `when`, `advcl:where` on 16 of 18)
ADVCL_ADVERBS = ("when", "where")


def universal_relation(relation: str) -> str:
    return relation.split(":")[0]


def lemma_or_form(word: int, forms: Sequence[str], lemmas: Sequence[str]) -> str:
    """A word's lemma lower-cased, its form where it has none (`_`)."""
    return (forms[word] if lemmas[word] == "_" else lemmas[word]).lower()


def marker_text(word: int, forms: Sequence[str], lemmas: Sequence[str], children: Sequence[List[int]],
                relations: Sequence[str], upos: Optional[Sequence[str]] = None) -> str:
    """
    A marker word's text in a label: its lemma lower-cased, or with `fixed` children, the forms of the whole
    expression joined by `_` (`according_to`, whose first lemma is `accord`); a verb (`upos` `VERB`) by its
    form (`including`, whose lemma is `include`).
    """
    fixed = [child for child in children[word] if universal_relation(relations[child]) == "fixed"]
    if fixed:
        return "_".join(forms[index].lower() for index in sorted([word] + fixed))
    if upos is not None and upos[word] == "VERB":
        return forms[word].lower()
    return lemma_or_form(word, forms, lemmas)


def marker_candidates(word: int, kind: str, children: Sequence[List[int]], relations: Sequence[str]) -> List[int]:
    """The children of `word` whose basic relation is `kind` (`case`, `mark`, `cc`), in word order."""
    return [child for child in children[word] if universal_relation(relations[child]) == kind]


def marker_word(
    word: int, kinds: Sequence[str], children: Sequence[List[int]], relations: Sequence[str]
) -> Optional[int]:
    """
    The marker of `word` (indices from 1, the root 0): of its children with the first of `kinds` that it has,
    the nearest before it, else the first after it; `None` without one. `children` in word order.
    """
    for kind in kinds:
        found = marker_candidates(word, kind, children, relations)
        if found:
            before = [child for child in found if child < word]
            return before[-1] if before else found[0]
    return None


def advcl_adverb(word: int, children: Sequence[List[int]], relations: Sequence[str],
                 lemmas: Sequence[str], forms: Sequence[str]) -> Optional[int]:
    """The nearest `when`/`where` (`ADVCL_ADVERBS`) before `word` in `advmod`, the marker of an unmarked `advcl`."""
    found = [child for child in children[word] if child < word and universal_relation(relations[child]) == "advmod"
             and lemma_or_form(child, forms, lemmas) in ADVCL_ADVERBS]
    return found[-1] if found else None


def fill_lexical_labels(
    forms: Sequence[str],
    lemmas: Sequence[str],
    heads: Sequence[int],
    relations: Sequence[str],
    graph: EnhancedGraph,
    basic_relations: Set[str],
    only_subtyped: bool = False,
    upos: Optional[Sequence[str]] = None,
) -> EnhancedGraph:
    """
    `graph` with the lexical part of its labels filled from the basic tree (the module's rule).

    # Parameters

    forms, lemmas : `Sequence[str]`, the words' FORM and LEMMA (`_` where none).
    heads, relations : `Sequence[int]`, `Sequence[str]`, the basic tree (HEAD, 0 the root; DEPREL).
    graph : `EnhancedGraph`, each word's `(head, label)` pairs.
    basic_relations : `Set[str]`, the basic relations (DEPREL values) whose subtypes are not lexical.
    only_subtyped : `bool`, optional (default = `False`)
        Fill only labels that already have a lexical subtype (the parser said there is a marker; the rule
        says which), leaving plain `obl` plain.
    upos : `Sequence[str]`, optional (default = `None`)
        The words' UPOS: a verb marker is written as its form. Without them every marker by its lemma.
    """
    num_words = len(forms)
    # index 0 is the root; words 1..N
    children: List[List[int]] = [[] for _ in range(num_words + 1)]
    for dependent, head in enumerate(heads, start=1):
        children[head].append(dependent)
    padded_forms = ["<root>"] + list(forms)
    padded_lemmas = ["_"] + list(lemmas)
    padded_relations = ["_"] + list(relations)
    padded_upos = None if upos is None else ["_"] + list(upos)

    def marker(word: int, kinds: Sequence[str], relation: str = "") -> Optional[str]:
        chosen = marker_word(word, kinds, children, padded_relations)
        if chosen is None and relation == "advcl":
            chosen = advcl_adverb(word, children, padded_relations, padded_lemmas, padded_forms)
        if chosen is None:
            return None
        return marker_text(chosen, padded_forms, padded_lemmas, children, padded_relations, padded_upos)

    def conjunct_marker(word: int, relation: str) -> Optional[str]:
        # up the conj chain: "in Mosul, Baiji and Tuz", where Baiji and Tuz hang from Mosul
        seen = {word}
        while universal_relation(padded_relations[word]) == "conj" and heads[word - 1] not in seen:
            word = heads[word - 1]
            seen.add(word)
            found = marker(word, MARKERS[relation], relation)
            if found is not None:
                return found
        return None

    filled: EnhancedGraph = []
    for word, pairs in enumerate(graph, start=1):
        new_pairs = []
        for head, label in pairs:
            relation = universal_relation(label)
            if PATH_SEPARATOR in label or relation not in MARKERS or (label != relation and label in basic_relations):
                new_pairs.append((head, label))
                continue
            if only_subtyped and label == relation:
                new_pairs.append((head, label))
                continue
            found = marker(word, MARKERS[relation], relation)
            if found is None and relation == "conj":
                # "A, B and C": the coordinator sits on the last conjunct
                later = [child for child in children[heads[word - 1]] if child > word
                         and universal_relation(padded_relations[child]) == "conj"]
                found = next((m for m in (marker(child, ("cc",)) for child in later) if m is not None), None)
            if found is None and head != heads[word - 1]:
                found = conjunct_marker(word, relation)
            # a symbol (`&`, `/`) is no subtype in UD's labels
            if found is not None and not any(character.isalpha() for character in found):
                found = None
            new_pairs.append((head, label if found is None else f"{relation}:{found}"))
        filled.append(sorted(set(new_pairs), key=lambda pair: (pair[0], pair[1])))
    return filled


def drop_replaced_tree_edges(heads: Sequence[int], graph: EnhancedGraph) -> EnhancedGraph:
    """
    `graph` without the basic tree edge of each word that the graph attaches with `ref`: in enhanced UD a
    relative pronoun hangs from its antecedent by `ref`, and the relation it has in the basic tree goes to the
    antecedent instead (EWT: 1,258 of the 1,259 train words with a `ref` edge lack their tree edge, 124 of 124
    on test). The tree-first parser's graph always holds its tree (`structs.graph`), so the edge is taken out
    here. Kept where taking it out would leave the word unreachable from the root: the antecedent under the
    word itself in the tree.

    # Parameters

    heads : `Sequence[int]`, the basic tree (HEAD, 0 the root), word 1 first.
    graph : `EnhancedGraph`, each word's `(head, label)` pairs.
    """

    def tree_ancestors(node: int) -> Set[int]:
        seen: Set[int] = set()
        while node != 0 and node not in seen:
            seen.add(node)
            node = heads[node - 1]
        return seen

    kept: EnhancedGraph = []
    for word, pairs in enumerate(graph, start=1):
        tree_head = heads[word - 1]
        antecedents = [head for head, label in pairs if label == "ref" and head != tree_head]
        if antecedents and not any(word in tree_ancestors(antecedent) for antecedent in antecedents):
            pairs = [(head, label) for head, label in pairs if head != tree_head]
        kept.append(list(pairs))
    # a chain of such words could still cut some off: then the sentence keeps its graph as it was
    children: Dict[int, List[int]] = {}
    for word, pairs in enumerate(kept, start=1):
        for head, _ in pairs:
            children.setdefault(head, []).append(word)
    reached, frontier = {0}, [0]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in reached:
                reached.add(child)
                frontier.append(child)
    if len(reached) < len(graph) + 1:
        return [list(pairs) for pairs in graph]
    return kept
