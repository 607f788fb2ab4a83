"""PyTorch's layers that wrap one functional call (``eagerad.torch.nn.functional_layers``):
each against PyTorch's own layer built with the same arguments, on the same input, values
and input gradients in float64; constructor mistakes name the layer and its signature."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X3, X4 = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 4, 6, 6))

# (layer, constructor args, inputs): the inputs are numpy arrays, the first differentiated
CASES = [
    ("MaxPool1d", (2,), (X3,)),
    ("AvgPool1d", (3, 2, 1), (X3,)),
    ("LPPool1d", (2.0, 2), (np.abs(X3) + 0.1,)),
    ("LPPool2d", (2.0, 2), (np.abs(X4) + 0.1,)),
    ("GLU", (), (X4,)),
    ("Threshold", (0.1, 20.0), (X3,)),
    ("Softmin", (1,), (X3,)),
    ("Softmax2d", (), (X4,)),
    ("Hardshrink", (0.3,), (X3,)),
    ("Softshrink", (0.3,), (X3,)),
    ("LocalResponseNorm", (2,), (X4,)),
    ("ChannelShuffle", (2,), (X4,)),
    ("Unfold", (2,), (X4,)),
    ("CosineSimilarity", (), (X4, X4[::-1].copy())),
    ("PairwiseDistance", (), (X3[:, :, 0], X3[:, :, 1])),
    ("Fold", ((5, 5), 2, 1, 1, 1), (rng.standard_normal((2, 8, 36)),)),
    ("Fold", ((4, 6), (2, 3), 1, 0, (2, 3)), (rng.standard_normal((3, 12, 4)),)),
    ("ZeroPad2d", ((1, 2, 0, 1),), (X4,)),
    ("ConstantPad1d", (2, 3.5), (X3,)),
    ("ReflectionPad2d", (2,), (X4,)),
    ("ReplicationPad1d", ((1, 3),), (X3,)),
    ("CircularPad2d", (1,), (X4,)),
    ("UpsamplingNearest2d", (None, 2), (X4,)),
    ("UpsamplingBilinear2d", (None, 2), (X4,)),
    ("PReLU", (4, 0.1), (X4,)),
    ("RMSNorm", (6,), (X3,)),
    ("InstanceNorm1d", (4,), (X3,)),
    ("InstanceNorm2d", (4, 1e-5, 0.1, True), (X4,)),
    ("Conv3d", (4, 2, 2, 1, 1, 1, 2, True, "circular"), (rng.standard_normal((2, 4, 3, 4, 4)),)),
    ("ConvTranspose1d", (4, 2, 3, 2, 1, 1), (X3,)),
    ("ConvTranspose2d", (4, 3, 3, 1, 0, 1, 1, True, 2), (X4,)),   # output_padding >= stride
    ("ConvTranspose3d", (4, 2, 2, 2), (rng.standard_normal((1, 4, 2, 3, 2)),)),
    ("BatchNorm3d", (4,), (rng.standard_normal((2, 4, 2, 3, 2)),)),
    ("AdaptiveMaxPool2d", ((2, 3),), (X4,)),
    ("MaxPool3d", (2,), (rng.standard_normal((1, 2, 4, 4, 4)),)),
    ("AvgPool3d", (2, 1, 1), (rng.standard_normal((1, 2, 4, 4, 4)),)),
    ("LPPool1d", (3.0, 2), (np.abs(X3) + 0.1,)),
    ("HingeEmbeddingLoss", (), (X3, np.sign(X3))),
    ("SoftMarginLoss", (), (X3, np.sign(X3))),
    ("MarginRankingLoss", (0.2,), (X3[:, 0], X3[:, 1], np.sign(X3[:, 2]))),
    ("CosineEmbeddingLoss", (0.1,), (X3[:, :, 0], X3[:, :, 1], np.array([1.0, -1.0]))),
    ("MultiLabelSoftMarginLoss", (), (X3[:, :, 0], (X3[:, :, 1] > 0).astype(float))),
    ("MultiMarginLoss", (), (X3[:, :, 0], np.array([1, 3]))),
    ("PoissonNLLLoss", (), (X3, np.abs(X3))),
    ("TripletMarginLoss", (), (X3[:, :, 0], X3[:, :, 1], X3[:, :, 2])),
]


@pytest.mark.parametrize("name, args, inputs", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_torch(name, args, inputs):
    results = []
    pt.manual_seed(0)
    reference = getattr(pt.nn, name)(*args).double()
    for fw in (torch, pt):
        layer = getattr(fw.nn, name)(*args).double()
        if fw is torch and reference.state_dict():     # the same weights as PyTorch's layer
            layer.load_state_dict({k: torch.tensor(v.numpy()) for k, v in reference.state_dict().items()})
        elif fw is pt:
            layer = reference
        tensors = [fw.tensor(a) for a in inputs]
        tensors[0].requires_grad_(True)
        out = layer(*tensors)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), tensors[0].grad.numpy()))
    (mine, mine_grad), (theirs, their_grad) = results
    np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mine_grad, their_grad, rtol=1e-9, atol=1e-12)


def test_dropout2d_zeroes_whole_channels_and_scales_the_rest():
    torch.manual_seed(0)
    layer = torch.nn.Dropout2d(0.5)
    out = layer(torch.ones(8, 16, 3, 3)).numpy()
    per_channel = out.reshape(8, 16, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert all(len(set(c)) == 1 for c in per_channel.reshape(-1, 9))
    layer.eval()
    assert (layer(torch.ones(2, 3, 2, 2)) == 1).all()


def test_constructor_mistakes_name_the_layer_and_signature():
    with pytest.raises(TypeError, match=r"nn\.MaxPool1d\(kernel_size"):
        torch.nn.MaxPool1d()
    with pytest.raises(ValueError, match="ZeroPad2d: padding must be an int or 4 ints"):
        torch.nn.ZeroPad2d((1, 2))


def test_new_layers_have_their_pytorch_import_paths():
    from eagerad.torch.nn.modules.padding import ReflectionPad2d
    from eagerad.torch.nn.modules.pooling import AdaptiveMaxPool2d
    assert ReflectionPad2d is torch.nn.ReflectionPad2d
    assert AdaptiveMaxPool2d is torch.nn.AdaptiveMaxPool2d


def test_in_place_functional_activations_write_their_input():
    F = torch.nn.functional
    x = torch.tensor([-2.0, 0.5])
    assert F.relu_(x) is x and x.tolist() == [0.0, 0.5]
    y = torch.tensor([-2.0, 3.0])
    F.leaky_relu_(y, 0.5)
    assert y.tolist() == [-1.0, 3.0]
    values, indices = F.max_pool1d_with_indices(torch.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    assert values.tolist() == [[[3.0, 2.0]]] and indices.tolist() == [[[1, 2]]]


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    torch.manual_seed(0)
    logits = torch.tensor([[1.0, 2.0, 0.5]] * 3, requires_grad=True)
    y = torch.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    assert sorted(y.sum(-1).tolist()) == [1.0, 1.0, 1.0] and set(y.flatten().tolist()) <= {0.0, 1.0}
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad.abs().sum().item() > 0


def test_softmax_family_over_an_empty_axis_is_empty_or_minus_infinity():
    x = torch.ones(2, 0, requires_grad=True)
    assert torch.softmax(x, 1).shape == (2, 0) and torch.log_softmax(x, 1).shape == (2, 0)
    lse = torch.logsumexp(x, 1)
    assert lse.tolist() == [float("-inf")] * 2
    lse.sum().backward()
    assert x.grad.shape == (2, 0)
