"""
A treebank's sentences as the documents and paragraphs of its raw text (`# newdoc`, `# newpar`). A file
without such comments is one document of one paragraph.
"""
from typing import Iterable, List

from seqgraph_allennlp.common.conllu import ConlluSentence

Paragraph = List[ConlluSentence]
Document = List[Paragraph]


def documents(sentences: Iterable[ConlluSentence]) -> List[Document]:
    """The sentences as documents of paragraphs, in file order."""
    docs: List[Document] = []
    for sentence in sentences:
        keys = sentence.metadata
        if not docs or "newdoc id" in keys or "newdoc" in keys:
            docs.append([[]])
        elif "newpar" in keys or "newpar id" in keys:
            docs[-1].append([])
        docs[-1][-1].append(sentence)
    return docs
