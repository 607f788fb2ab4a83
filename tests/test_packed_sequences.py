"""``torch.nn.utils.rnn`` and recurrent layers over a ``PackedSequence``: packing layouts by
hand, round trips, gradients through packing, and LSTM/GRU/RNN (stacked, bidirectional,
unsorted lengths) against PyTorch from the same weights."""
import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.torch.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                        pad_sequence, unpack_sequence)


def test_packing_layout_and_round_trip_in_the_original_order():
    seqs = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0]), torch.tensor([6.0])]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.data.tolist() == [3.0, 1.0, 6.0, 4.0, 2.0, 5.0]
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [1, 0, 2]
    assert packed.unsorted_indices.tolist() == [1, 0, 2]
    padded, lengths = pad_packed_sequence(packed, batch_first=True, padding_value=-1.0)
    assert padded.tolist() == [[1.0, 2.0, -1.0], [3.0, 4.0, 5.0], [6.0, -1.0, -1.0]]
    assert lengths.tolist() == [2, 3, 1]
    assert [s.tolist() for s in unpack_sequence(packed)] == [s.tolist() for s in seqs]
    assert pad_packed_sequence(packed, total_length=5)[0].shape == (5, 3)


def test_packing_is_differentiable():
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    packed = pack_padded_sequence(x, [3, 1], enforce_sorted=True)
    (packed.data * torch.arange(4.0)).sum().backward()
    # data = x[0,0], x[0,1], x[1,0], x[2,0]: their weights 0, 1, 2, 3; x[1,1], x[2,1] unused
    assert x.grad.tolist() == [[0.0, 1.0], [2.0, 0.0], [3.0, 0.0]]


def test_bad_lengths_say_what_is_wrong():
    x = torch.zeros(3, 2)
    with pytest.raises(ValueError, match="decreasing"):
        pack_padded_sequence(x, [1, 3])
    with pytest.raises(ValueError, match="exceeds"):
        pack_padded_sequence(x, [4, 1])
    with pytest.raises(ValueError, match="2 sequences"):
        pack_padded_sequence(x, [3])
    assert pad_sequence([torch.ones(1), torch.ones(2)], padding_side="left").tolist() == \
        [[0.0, 1.0], [1.0, 1.0]]


pt = pytest.importorskip("torch")


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_over_packed_sequences_match_torch(kind):
    pt.manual_seed(0)
    ref = getattr(pt.nn, kind)(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    mine = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    mine.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5, 3))
    lengths = [3, 5, 1, 4]
    results = []
    for fw, net in ((torch, mine), (pt, ref)):
        xt = fw.tensor(x, requires_grad=True)
        packed = fw.nn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=True,
                                                      enforce_sorted=False)
        out, state = net(packed)
        h = state[0] if kind == "LSTM" else state
        padded, out_lengths = fw.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        loss = (padded ** 2).sum() + (h * fw.arange(4.0, dtype=fw.float64)).sum()
        if kind == "LSTM":
            loss = loss + state[1].sum()
        loss.backward()
        results.append((padded.detach().numpy(), h.detach().numpy(), out_lengths.tolist(),
                        xt.grad.numpy(), net.weight_hh_l1_reverse.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
