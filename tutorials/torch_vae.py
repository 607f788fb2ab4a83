"""A variational auto-encoder training step as in pytorch/examples' ``vae`` (fc1 ->
(fc21, fc22) -> reparameterise -> fc3 -> fc4, BCE + KL loss, Adam), written once for
any ``torch`` module and run on synthetic binary "images".  The reparameterisation noise
is drawn once with numpy and fed to both frameworks, so their losses can be compared.

Run: ``python tutorials/torch_vae.py`` (compares with PyTorch if installed)
"""
import numpy as np

from torch_same_weights import copy_weights, real_torch

PIXELS, HIDDEN, LATENT, BATCH, STEPS = 64, 32, 4, 16, 8


def model_class(torch):
    """The ``VAE`` class for the framework ``torch``."""
    nn, F = torch.nn, torch.nn.functional

    class VAE(nn.Module):
        """Encoder to (mu, logvar), decoder from a latent sample."""

        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(PIXELS, HIDDEN)
            self.fc21 = nn.Linear(HIDDEN, LATENT)
            self.fc22 = nn.Linear(HIDDEN, LATENT)
            self.fc3 = nn.Linear(LATENT, HIDDEN)
            self.fc4 = nn.Linear(HIDDEN, PIXELS)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar, eps):
            return mu + eps * torch.exp(0.5 * logvar)

        def decode(self, z):
            return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

        def forward(self, x, eps):
            mu, logvar = self.encode(x.view(-1, PIXELS))
            return self.decode(self.reparameterize(mu, logvar, eps)), mu, logvar

    return VAE


def loss_function(torch, recon_x, x, mu, logvar):
    """Reconstruction (summed binary cross-entropy) plus KL divergence to N(0, I)."""
    bce = torch.nn.functional.binary_cross_entropy(recon_x, x.view(-1, PIXELS), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def data(seed=0):
    """STEPS batches of (images, noise) as float32 numpy arrays."""
    rng = np.random.default_rng(seed)
    for _ in range(STEPS):
        images = (rng.random((BATCH, 1, 8, 8)) < 0.3).astype(np.float32)
        yield images, rng.standard_normal((BATCH, LATENT)).astype(np.float32)


def train(torch, model):
    """``STEPS`` Adam steps; the loss per sample of each."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    losses = []
    for images, noise in data():
        x = torch.tensor(images)
        optimizer.zero_grad()
        recon, mu, logvar = model(x, torch.tensor(noise))
        loss = loss_function(torch, recon, x, mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.item() / BATCH)
    return losses


def run(torch, reference=None):
    """Train a fresh VAE (with ``reference``'s weights if given); its losses."""
    model = model_class(torch)()
    if reference is not None:
        copy_weights(reference, model, torch)
    return train(torch, model)


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    if pt is None:
        print("eagerad losses:", run(etorch))
    else:
        pt.manual_seed(0)
        reference = model_class(pt)()
        print("eagerad:", [f"{v:.5f}" for v in run(etorch, reference)])
        print("PyTorch:", [f"{v:.5f}" for v in run(pt, reference)])
