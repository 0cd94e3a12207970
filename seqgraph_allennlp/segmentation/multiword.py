"""
Multiword-token expansion learned from a treebank: a token into its words (`I'm` -> `I` `'m`, German
`zum` -> `zu` `dem`).

A token seen in training takes its most frequent expansion there (its own form first, then its lowercase
form with the token's casing put back). A token never seen takes the expansion *rule* of the seen tokens
that share its longest ending: a rule keeps the token's beginning as the first word's stem and rewrites
the rest (`don't` -> `do` + `n't` is "keep all but the last 3 characters; the first word adds nothing; the
second word is the last 3 characters"), so `shouldn't` -> `should` `n't` and Welsh `Dyma'r` -> `Dyma` `'r`
follow from seen tokens. The rules are induced from the training pairs, in the way UDPipe and lemmatisers
induce edit rules, and chosen by frequency; `evaluate` measures them on tokens held out from the pairs.
"""
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

# the longest token ending that a rule is keyed on
MAX_SUFFIX = 5


@dataclass(frozen=True)
class Rule:
    """
    How a token becomes its words: drop its last `strip` characters; the first word is what is left plus
    `first_tail`; each later word is either a piece of the dropped ending (`(start, stop)` into it: case
    kept) or a fixed string.
    """

    strip: int
    first_tail: str
    rest: Tuple[object, ...]

    def apply(self, form: str) -> Optional[List[str]]:
        if self.strip >= len(form):
            return None
        stem, ending = form[: len(form) - self.strip], form[len(form) - self.strip:]
        words = [stem + self.first_tail]
        for piece in self.rest:
            words.append(ending[piece[0]:piece[1]] if isinstance(piece, tuple) else piece)  # type: ignore[index]
        return words if all(words) else None


def induce_rule(form: str, words: Sequence[str]) -> Rule:
    """The rule that turns `form` into `words`, keeping as much of the form as the first word shares."""
    first = words[0]
    shared = 0
    while shared < min(len(form), len(first)) and form[shared].lower() == first[shared].lower():
        shared += 1
    shared = min(shared, len(form) - 1)  # a rule always rewrites at least the last character
    ending = form[shared:]
    rest: List[object] = []
    position = 0
    for word in words[1:]:
        found = ending.find(word, position) if position < len(ending) else -1
        if found >= 0:
            rest.append((found, found + len(word)))
            position = found + len(word)
        else:
            rest.append(word)
    return Rule(len(form) - shared, first[shared:], tuple(rest))


def _match_case(words: List[str], form: str) -> List[str]:
    if form.isupper() and len(form) > 1:
        return [word.upper() for word in words]
    if form[:1].isupper():
        return [words[0][:1].upper() + words[0][1:]] + words[1:]
    return words


class MultiwordExpander:
    """
    Expands multiword tokens as training showed, and by induced rules where it did not.

    # Parameters

    pairs : `Iterable[Tuple[str, Sequence[str]]]`
        The multiword tokens of a treebank as `(form, words)`, one per occurrence (their counts choose
        between expansions and between rules).
    """

    def __init__(self, pairs: Iterable[Tuple[str, Sequence[str]]]) -> None:
        counts: Dict[str, Counter] = defaultdict(Counter)
        lowercase: Dict[str, Counter] = defaultdict(Counter)
        rules: Dict[str, Counter] = defaultdict(Counter)
        for form, words in pairs:
            words = tuple(words)
            counts[form][words] += 1
            lowercase[form.lower()][tuple(word.lower() for word in words)] += 1
            rule = induce_rule(form.lower(), [word.lower() for word in words])
            for length in range(1, min(MAX_SUFFIX, len(form)) + 1):
                rules[form.lower()[-length:]][rule] += 1
        self.seen = {form: list(counter.most_common(1)[0][0]) for form, counter in counts.items()}
        self.seen_lowercase = {form: list(counter.most_common(1)[0][0]) for form, counter in lowercase.items()}
        self.rules = {suffix: counter.most_common(1)[0][0] for suffix, counter in rules.items()}

    def __len__(self) -> int:
        return len(self.seen)

    def expand(self, form: str) -> List[str]:
        """The words of the token `form`; `[form]` where neither training nor a rule expands it."""
        if form in self.seen:
            return list(self.seen[form])
        lower = form.lower()
        if lower in self.seen_lowercase:
            return _match_case(list(self.seen_lowercase[lower]), form)
        for length in range(min(MAX_SUFFIX, len(form)), 0, -1):
            rule = self.rules.get(lower[-length:])
            if rule is not None:
                words = rule.apply(form)
                if words is not None:
                    return _capitals(words, form)
        return [form]

    def pairs(self) -> List[Tuple[str, List[str]]]:
        """What the expander knows, as `(form, words)` (the most frequent expansion of each seen form)."""
        return sorted(self.seen.items())


def _capitals(words: List[str], form: str) -> List[str]:
    # a rule's fixed strings were learned in lowercase: an all-capitals token writes them in capitals
    return [word.upper() for word in words] if form.isupper() and len(form) > 1 else words
