"""
A sentence of raw text as a segmenter gives it: its words, the whitespace after each, and the multiword
tokens that hold several words (`don't` = `do` + `n't`, German `zum` = `zu` + `dem`).
"""
from dataclasses import dataclass, field
from typing import List, Tuple


@dataclass(frozen=True)
class MultiwordToken:
    """
    One token of the text that is several words (a CoNLL-U range line `first-last`).

    # Parameters

    first : `int`
        The 0-based index of its first word in the sentence.
    last : `int`
        The 0-based index of its last word (inclusive).
    form : `str`
        The token as it stands in the text.
    """

    first: int
    last: int
    form: str


@dataclass(frozen=True)
class TextSentence:
    """
    One sentence of a text, as words.

    # Parameters

    words : `List[str]`
        The words, none empty or holding whitespace.
    space_after : `List[bool]`
        Whether whitespace followed each word in the text (`SpaceAfter=No` in CoNLL-U where not). The
        last word's entry says whether whitespace (or the end of the text) follows the sentence. Inside a
        multiword token, only its last word's entry counts (it is the token's).
    multiword_tokens : `Tuple[MultiwordToken, ...]`, optional (default = `()`)
        The tokens of several words, in order, not overlapping.
    """

    words: List[str]
    space_after: List[bool]
    multiword_tokens: Tuple[MultiwordToken, ...] = field(default=())

    def tokens(self) -> List[Tuple[str, int, int]]:
        """The tokens as they stand in the text: `(form, first word, last word)` each."""
        starts = {token.first: token for token in self.multiword_tokens}
        tokens = []
        index = 0
        while index < len(self.words):
            token = starts.get(index)
            if token is None:
                tokens.append((self.words[index], index, index))
                index += 1
            else:
                tokens.append((token.form, token.first, token.last))
                index = token.last + 1
        return tokens

    @property
    def text(self) -> str:
        """The sentence as in the input, each run of whitespace inside it written as one space."""
        pieces = [form + (" " if self.space_after[last] else "") for form, _, last in self.tokens()]
        return "".join(pieces).rstrip(" ") if pieces else ""

    def conllu_lines(self) -> List[str]:
        """
        The sentence's token and word lines as UD writes them: a multiword token's range line (`3-4`, with
        `SpaceAfter=No` in MISC where no whitespace followed it) before its words' lines; ID and FORM, `_` in
        every other column.
        """
        lines = []
        for form, first, last in self.tokens():
            misc = "_" if self.space_after[last] else "SpaceAfter=No"
            if first == last:
                lines.append("\t".join([str(first + 1), form] + ["_"] * 7 + [misc]))
                continue
            lines.append("\t".join([f"{first + 1}-{last + 1}", form] + ["_"] * 7 + [misc]))
            lines.extend("\t".join([str(index + 1), self.words[index]] + ["_"] * 8) for index in range(first, last + 1))
        return lines
