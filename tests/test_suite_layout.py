"""
The suite's own layout for `make test`'s two processes (pytest-xdist, `-n 2 --dist loadfile`; tests/conftest.py):
a test file at a time to each process, in the order of the files' names, and the files that read the enhanced
twin's run, built once a run, together.
"""
import re
from pathlib import Path
from types import SimpleNamespace

from tests.conftest import ENHANCED_TWIN_FILES, pytest_xdist_make_scheduler

TESTS = Path(__file__).resolve().parent


def test_the_files_that_read_the_enhanced_twin_run_go_to_one_process():
    reading = {path.name for path in TESTS.glob("test_*.py") if path.name != Path(__file__).name
               if re.search(r"\b(enhanced_twin_run|enhanced_model_archive)\b", path.read_text(encoding="utf-8"))}
    assert reading == ENHANCED_TWIN_FILES


class Config:
    """What xdist's schedulers read of pytest's config."""

    def __init__(self, dist: str) -> None:
        self.option = SimpleNamespace(dist=dist, tx=["2*popen"], loadscopereorder=True)

    def getvalue(self, name: str):
        return getattr(self.option, name)


def test_loadfile_sends_a_file_at_a_time_in_name_order_and_the_enhanced_twin_files_together():
    config = Config("loadfile")
    scheduler = pytest_xdist_make_scheduler(config, None)
    assert scheduler._split_scope("tests/test_api.py::test_parse_text") == "tests/test_api.py"
    assert scheduler._split_scope("tests/test_model.py::TestSeqGraphParser::test_x[a::b]") == "tests/test_model.py"
    assert {scheduler._split_scope(f"tests/{name}::test_x") for name in ENHANCED_TWIN_FILES} == {"enhanced_twin"}
    # the units in collection order, not xdist's largest first
    assert config.option.loadscopereorder is False
    # another --dist is xdist's own
    assert pytest_xdist_make_scheduler(Config("load"), None) is None
