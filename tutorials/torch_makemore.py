"""A character-level GPT as in karpathy/makemore (a ``Dataset`` of words, an endless
``RandomSampler(replacement=True, num_samples=int(1e10))`` feeding a ``DataLoader``,
pre-LayerNorm causal attention blocks in ``ModuleDict``s, ``apply`` for the initial
weights, cross-entropy with ``ignore_index=-1``, ``zero_grad(set_to_none=True)``,
gradient clipping, AdamW, sampling with ``topk`` and ``multinomial``, ``torch.save`` /
``torch.load`` of the state dict), written once for any ``torch`` module and run on
synthetic words.

Run: ``python tutorials/torch_makemore.py`` (compares with PyTorch if installed)
"""
import math
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from torch_same_weights import copy_weights, real_torch

STEPS, BATCH = 6, 8


@dataclass
class GPTConfig:
    """Sizes of the model (makemore's defaults shrunk for a quick run)."""
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    vocab_size: int = None
    block_size: int = None


def words(count=64, seed=0):
    """Pronounceable synthetic names: alternating consonants and vowels."""
    rng = np.random.default_rng(seed)
    cons, vows = "bdklmnrst", "aeiou"
    return ["".join(rng.choice(list(cons if i % 2 == 0 else vows)) for i in range(n))
            for n in rng.integers(3, 8, count)]


def program(torch):
    """makemore's classes for the framework ``torch``: (GPT, CharDataset)."""
    nn, F = torch.nn, torch.nn.functional

    class NewGELU(nn.Module):
        """GELU's tanh form, as in GPT-2."""

        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class CausalSelfAttention(nn.Module):
        """Multi-head masked self-attention with the mask as a buffer."""

        def __init__(self, config):
            super().__init__()
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd)
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                 .view(1, 1, config.block_size, config.block_size))
            self.n_head, self.n_embd = config.n_head, config.n_embd

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        """Attention then an MLP, each behind a LayerNorm and a residual."""

        def __init__(self, config):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
                                          c_proj=nn.Linear(4 * config.n_embd, config.n_embd),
                                          act=NewGELU()))
            m = self.mlp
            self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlpf(self.ln_2(x))

    class GPT(nn.Module):
        """Token and position embeddings, blocks, a final LayerNorm and the head."""

        def __init__(self, config):
            super().__init__()
            self.block_size = config.block_size
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd)))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)
            return logits, loss

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, do_sample=False, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :]
                if top_k is not None:
                    v, _ = torch.topk(logits, top_k)
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                if do_sample:
                    idx_next = torch.multinomial(probs, num_samples=1)
                else:
                    _, idx_next = torch.topk(probs, k=1, dim=-1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    class CharDataset(torch.utils.data.Dataset):
        """Words as (input, target) index rows; -1 masks the loss past a word's end."""

        def __init__(self, words, chars, max_word_length):
            self.words, self.chars, self.max_word_length = words, chars, max_word_length
            self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}
            self.itos = {i: s for s, i in self.stoi.items()}

        def __len__(self):
            return len(self.words)

        def get_vocab_size(self):
            return len(self.chars) + 1

        def get_output_length(self):
            return self.max_word_length + 1

        def decode(self, ix):
            return "".join(self.itos[i] for i in ix)

        def __getitem__(self, idx):
            word = self.words[idx]
            ix = torch.tensor([self.stoi[w] for w in word], dtype=torch.long)
            x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
            y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
            x[1:1 + len(ix)] = ix
            y[:len(ix)] = ix
            y[len(ix) + 1:] = -1
            return x, y

    return GPT, CharDataset


def build(torch, reference=None):
    """(model, dataset): a fresh GPT (with ``reference``'s weights if given)."""
    GPT, CharDataset = program(torch)
    names = words()
    dataset = CharDataset(names, sorted(set("".join(names))), max(len(w) for w in names))
    config = GPTConfig(vocab_size=dataset.get_vocab_size(), block_size=dataset.get_output_length())
    model = GPT(config)
    if reference is not None:
        copy_weights(reference, model, torch)
    return model, dataset


def train(torch, model, dataset, sampler=None):
    """makemore's loop for ``STEPS`` steps (endless random sampler unless ``sampler`` is
    given); the losses, then a save / load round trip and a few samples."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, betas=(0.9, 0.99),
                                  weight_decay=0.01, eps=1e-8)
    if sampler is None:
        sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, pin_memory=True,
                                         num_workers=0, sampler=sampler)
    data_iter, losses = iter(loader), []
    for _ in range(STEPS):
        X, Y = [t.to("cpu") for t in next(data_iter)]
        logits, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    with tempfile.TemporaryDirectory() as work_dir:
        path = os.path.join(work_dir, "model.pt")
        torch.save(model.state_dict(), path)
        model.load_state_dict(torch.load(path))
    model.eval()
    samples = model.generate(torch.zeros(3, 1, dtype=torch.long), 6, do_sample=True, top_k=5)
    return losses, [dataset.decode([i for i in row[1:].tolist() if i != 0]) for row in samples]


def fixed_order(seed=1):
    """Sample indices both frameworks draw alike (numpy's, not either's generator)."""
    return [int(i) for i in np.random.default_rng(seed).integers(0, len(words()), STEPS * BATCH)]


if __name__ == "__main__":
    import eagerad.torch as etorch
    etorch.manual_seed(3407)
    losses, samples = train(etorch, *build(etorch))
    print("eagerad losses:", [f"{v:.4f}" for v in losses], "samples:", samples)
    pt = real_torch()
    if pt is not None:
        pt.manual_seed(3407)
        reference, _ = build(pt)
        print("same weights and batches, eagerad:",
              [f"{v:.5f}" for v in train(etorch, *build(etorch, reference), fixed_order())[0]])
        print("same weights and batches, PyTorch:",
              [f"{v:.5f}" for v in train(pt, *build(pt, reference), fixed_order())[0]])
