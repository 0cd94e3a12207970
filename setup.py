"""seqgraph-allennlp: the Sequential Graph Dependency Parser (Welleck & Cho, 2019) as an AllenNLP plugin.

AllenNLP 2.10.1 pins torch<1.13, which has no wheels for Python 3.11, so its dependencies are not declared
here: `make install` installs torch, allennlp (without its pins) and the pinned requirements in
`requirements/`, then this package with `--no-deps`.
"""
from setuptools import find_packages, setup

setup(
    name="seqgraph-allennlp",
    version="0.1.0",
    description="Sequential Graph Dependency Parser (Welleck & Cho, 2019) for AllenNLP",
    # kept out of the parser: seqgraph_assets, the install-time converters (`make install` runs them), and
    # seqgraph_experiments, the experiment and benchmark tools (scripts/ and benchmarks/ run them)
    packages=find_packages(
        include=["seqgraph_allennlp", "seqgraph_allennlp.*", "seqgraph_assets", "seqgraph_assets.*",
                 "seqgraph_experiments", "seqgraph_experiments.*"]
    ),
    python_requires=">=3.11",
    license="Apache-2.0",
)
