"""A word-level language model step as in pytorch/examples' ``word_language_model``
(Embedding -> LSTM -> Linear decoder, truncated back-propagation through time with the
hidden state detached between chunks, gradient clipping and a manual SGD update),
written once for any ``torch`` module and run on a synthetic corpus.

Run: ``python tutorials/torch_word_language_model.py`` (compares with PyTorch if installed)
"""
import numpy as np

from torch_same_weights import copy_weights, real_torch

NTOKEN, NINP, NHID, NLAYERS, BPTT, BATCH = 30, 16, 24, 2, 6, 4


def model_class(torch):
    """The ``RNNModel`` class for the framework ``torch``."""
    nn, F = torch.nn, torch.nn.functional

    class RNNModel(nn.Module):
        """Encoder, recurrent module, decoder."""

        def __init__(self, rnn_type="LSTM", dropout=0.0):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(NTOKEN, NINP)
            self.rnn = getattr(nn, rnn_type)(NINP, NHID, NLAYERS, dropout=dropout)
            self.decoder = nn.Linear(NHID, NTOKEN)
            self.rnn_type = rnn_type
            nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            decoded = self.decoder(self.drop(output)).view(-1, NTOKEN)
            return F.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            if self.rnn_type == "LSTM":
                return (weight.new_zeros(NLAYERS, bsz, NHID), weight.new_zeros(NLAYERS, bsz, NHID))
            return weight.new_zeros(NLAYERS, bsz, NHID)

    return RNNModel


def repackage_hidden(h):
    """Hidden states detached from their history (one tensor or a tuple)."""
    return h.detach() if not isinstance(h, tuple) else tuple(repackage_hidden(v) for v in h)


def corpus(length=BPTT * 5 + 1, seed=0):
    """(length, BATCH) int64 token ids of a noisy repeating sequence."""
    rng = np.random.default_rng(seed)
    base = np.arange(length)[:, None] * 7 + np.arange(BATCH)[None] * 3
    return ((base + (rng.random((length, BATCH)) < 0.2)) % NTOKEN).astype(np.int64)


def train(torch, model, lr=2.0, clip=0.25):
    """One epoch of truncated BPTT; the loss of each chunk."""
    criterion = torch.nn.NLLLoss()
    data = torch.tensor(corpus())
    model.train()
    hidden = model.init_hidden(BATCH)
    losses = []
    for i in range(0, data.size(0) - 1, BPTT):
        n = min(BPTT, data.size(0) - 1 - i)
        inputs, targets = data[i:i + n], data[i + 1:i + 1 + n].reshape(-1)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(inputs, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
    return losses


def run(torch, reference=None, rnn_type="LSTM"):
    """Train a fresh model (with ``reference``'s weights if given); its losses."""
    model = model_class(torch)(rnn_type)
    if reference is not None:
        copy_weights(reference, model, torch)
    return train(torch, model)


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    for kind in ("LSTM", "GRU", "RNN"):
        if pt is None:
            print(kind, "eagerad losses:", run(etorch, rnn_type=kind))
            continue
        pt.manual_seed(0)
        reference = model_class(pt)(kind)
        mine, theirs = run(etorch, reference, kind), run(pt, reference, kind)
        print(kind, "eagerad:", [f"{v:.5f}" for v in mine])
        print(kind, "PyTorch:", [f"{v:.5f}" for v in theirs])
