"""``torch.utils`` import paths: checkpoint, data, benchmark.Timer."""
import eagerad


def test_torch_utils_paths_reach_eagerads_own_modules():
    from eagerad.utils.benchmark import Timer
    from eagerad.utils.checkpoint import checkpoint
    from eagerad.utils.data import DataLoader, TensorDataset
    assert checkpoint is eagerad.checkpoint and DataLoader is eagerad.data.DataLoader
    assert TensorDataset is eagerad.data.TensorDataset
    m = Timer("x @ x", globals={"x": eagerad.ones(4, 4)}).timeit(20)
    assert m.number == 20 and m.times[0] > 0 and "x @ x" in repr(m)
