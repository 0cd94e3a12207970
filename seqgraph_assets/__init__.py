"""
seqgraph-assets: the install-time converters that write the pretrained word representations the shipped
configs load (GloVe 6B 50d as a text file, multilingual-e5-small as a Hugging Face model directory) into
the environment, and where they write them.

It lies beside `seqgraph_allennlp`, not inside it, so that the parser never imports a converter: each
runs once, from `make install` (`python -m seqgraph_assets.glove`, `python -m seqgraph_assets.multilingual_e5`),
and the parser reads only the paths in `seqgraph_assets.locations`.
"""
