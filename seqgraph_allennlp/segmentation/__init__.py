"""
Raw text into sentences, tokens and words, learned from a UD treebank: the formulation as labels on
characters (`labels`), the characters' features (`features`), multiword-token expansion (`multiword`), the
documents of a treebank (`documents`), the sentences a segmenter gives (`sentence`) and the parser archive
that carries a segmenter (`archive`). The registered components are the `segmenter_ud` reader, the
`segmenter` model and the `segmenter` predictor.
"""
