"""
`modules.initialization`: a model loaded from an archive is built without its random initialisation, which
its saved state overwrites; training still initialises.
"""
import pytest
import torch
from allennlp.models import Model
from allennlp.models.archival import load_archive

from seqgraph_allennlp.models import Conll18BiaffineParser, EnhancedGraphParser, SeqGraphParser
from seqgraph_allennlp.modules.initialization import INIT_FUNCTIONS, LoadedWithoutInit, skip_parameter_init
from seqgraph_allennlp.segmentation.archive import CarriesSegmenter


def test_initialisers_leave_tensors_alone_inside_and_draw_again_after():
    tensor = torch.zeros(100)
    with skip_parameter_init():
        torch.nn.init.normal_(tensor)
        torch.nn.init.orthogonal_(tensor.view(10, 10))
        assert torch.count_nonzero(tensor) == 0
    torch.nn.init.normal_(tensor)
    assert torch.count_nonzero(tensor) == 100


def test_initialisers_are_restored_after_an_error():
    before = {name: getattr(torch.nn.init, name) for name in INIT_FUNCTIONS}
    with pytest.raises(ValueError):
        with skip_parameter_init():
            raise ValueError("while building")
    assert {name: getattr(torch.nn.init, name) for name in INIT_FUNCTIONS} == before


@pytest.mark.parametrize("model_class", [SeqGraphParser, EnhancedGraphParser, Conll18BiaffineParser])
def test_every_model_of_the_package_loads_without_init(model_class):
    assert issubclass(model_class, LoadedWithoutInit)
    # `_load` reaches LoadedWithoutInit's before Model's: only CarriesSegmenter (which calls super and then
    # sets the carried segmenter) may come before it
    owners = [klass for klass in model_class.__mro__ if "_load" in vars(klass)]
    assert owners.index(LoadedWithoutInit) < owners.index(Model)
    assert set(owners[: owners.index(LoadedWithoutInit)]) <= {CarriesSegmenter}


@pytest.mark.parametrize("archive_fixture", ["trained_model_archive", "enhanced_model_archive"])
def test_loading_an_archive_draws_no_initialisation_and_gives_the_saved_weights(archive_fixture, request, monkeypatch):
    archive_path = request.getfixturevalue(archive_fixture)
    calls = []
    original = torch.nn.init.kaiming_uniform_

    def counting(tensor, *args, **kwargs):
        calls.append(tuple(tensor.shape))
        return original(tensor, *args, **kwargs)

    monkeypatch.setattr(torch.nn.init, "kaiming_uniform_", counting)
    # loading draws no linear layer's weights...
    archive = load_archive(archive_path)
    assert calls == []
    # ...the loaded weights are the saved ones, the same at every load...
    again = load_archive(archive_path)
    for (name, parameter), (_, other) in zip(archive.model.named_parameters(), again.model.named_parameters()):
        assert torch.equal(parameter, other), name
    assert all(torch.isfinite(parameter).all() for parameter in archive.model.parameters())
    # ...while building the same model for training draws them
    Model.from_params(vocab=archive.model.vocab, params=archive.config.duplicate()["model"])
    assert len(calls) > 0
