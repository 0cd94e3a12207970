"""
What a segmenter sees of each character besides its identity: its case, whether it is a letter, digit,
punctuation, symbol, mark, whitespace or line break (Unicode's general category), so that characters never
seen in training (another script's letters, emoji) still carry what matters for their boundaries.
"""
import unicodedata
from functools import lru_cache
from typing import Callable, List, Optional, Tuple

import numpy

FEATURES = (
    "space", "newline", "upper", "lower", "letter", "digit", "punctuation", "symbol", "mark", "other",
    "closing", "opening",
)
NUM_FEATURES = len(FEATURES)


@lru_cache(maxsize=65536)
def _character_features(character: str) -> Tuple[float, ...]:
    category = unicodedata.category(character)
    return (
        float(character.isspace()),
        float(character in "\n\r\u2028\u2029"),
        float(character.isupper()),
        float(character.islower()),
        float(category[0] == "L"),
        float(category[0] == "N"),
        float(category[0] == "P"),
        float(category[0] == "S"),
        float(category[0] == "M"),
        float(category[0] == "C"),
        float(category in ("Pe", "Pf")),
        float(category in ("Ps", "Pi")),
    )


def character_token(character: str) -> str:
    """
    The vocabulary entry of a character: itself, or `U+XXXX` for whitespace and characters that are not
    printable (a vocabulary file holds one entry a line, and line breaks and spaces do not survive it).
    """
    return character if character.isprintable() and not character.isspace() else f"U+{ord(character):04X}"


def code_points(text: str) -> numpy.ndarray:
    """`(len(text),)` uint32: each character's code point."""
    return numpy.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=numpy.uint32)


def unique_characters(text: str) -> Tuple[List[str], numpy.ndarray]:
    """The distinct characters of `text` and, for each character of it, the index of its own among them."""
    unique, inverse = numpy.unique(code_points(text), return_inverse=True)
    return [chr(point) for point in unique.tolist()], inverse.reshape(-1)


def character_features(text: str) -> numpy.ndarray:
    """`(len(text), NUM_FEATURES)` float32: the features of each character of `text`."""
    characters, inverse = unique_characters(text)
    table = numpy.asarray([_character_features(character) for character in characters], dtype=numpy.float32)
    return table.reshape(-1, NUM_FEATURES)[inverse]


def segmenter_features(text: str, piece_ends: Optional[Callable[[str], numpy.ndarray]] = None) -> numpy.ndarray:
    """
    `(len(text), NUM_FEATURES [+ 1])` float32: what a segmenter sees of each character besides itself, its
    `character_features` and, with `piece_ends` (`pieces.PieceEnds`), whether a piece ends there. The reader
    and the model both call it, so training and segmenting see the same features.
    """
    features = character_features(text)
    return features if piece_ends is None else numpy.concatenate([features, piece_ends(text)], axis=1)
