"""A DCGAN training step as in pytorch/examples' ``dcgan``: a generator of transposed
convolutions and a discriminator of strided convolutions (``BatchNorm2d``,
``LeakyReLU(0.2, inplace=True)``, ``ReLU(True)``, ``Tanh``, ``Sigmoid``), a
``weights_init`` applied through ``apply`` that picks layers by class name, ``BCELoss``,
two Adam optimizers with ``betas=(0.5, 0.999)``, labels made with ``torch.full`` and
``fill_``, and the generator's output ``detach()``-ed for the discriminator's step.
Written once for any ``torch`` module, run on synthetic 64x64 images; the noise is drawn
with numpy and fed to both frameworks so their losses can be compared.

Run: ``python tutorials/torch_dcgan.py`` (compares with PyTorch if installed)
"""
import numpy as np

from torch_same_weights import copy_weights, real_torch

NZ, NGF, NDF, NC, BATCH, STEPS = 8, 4, 4, 3, 4, 3


def model_classes(torch):
    """(Generator, Discriminator, weights_init) for the framework ``torch``."""
    nn = torch.nn

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            torch.nn.init.normal_(m.weight, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            torch.nn.init.normal_(m.weight, 1.0, 0.02)
            torch.nn.init.zeros_(m.bias)

    class Generator(nn.Module):
        """nz x 1 x 1 noise -> nc x 64 x 64 image in (-1, 1)."""

        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(NZ, NGF * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 8), nn.ReLU(True),
                nn.ConvTranspose2d(NGF * 8, NGF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 4), nn.ReLU(True),
                nn.ConvTranspose2d(NGF * 4, NGF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
                nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF), nn.ReLU(True),
                nn.ConvTranspose2d(NGF, NC, 4, 2, 1, bias=False), nn.Tanh())

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        """nc x 64 x 64 image -> probability that it is real."""

        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv2d(NC, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 2),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(NDF * 2, NDF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 4),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(NDF * 4, NDF * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 8),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(NDF * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())

        def forward(self, input):
            return self.main(input).view(-1, 1).squeeze(1)

    return Generator, Discriminator, weights_init


def data(seed=0):
    """``STEPS`` (real images, noise) pairs as float32 numpy arrays."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(-1, 1, 64, dtype=np.float32)
    for _ in range(STEPS):
        phase = rng.uniform(0, np.pi, (BATCH, NC, 1, 1)).astype(np.float32)
        real = np.sin(3 * grid[None, None, :, None] + phase) * np.cos(2 * grid[None, None, None, :])
        yield real.astype(np.float32), rng.standard_normal((BATCH, NZ, 1, 1)).astype(np.float32)


def build(torch, reference=None):
    """(netG, netD), initialised by ``weights_init`` or copied from ``reference``."""
    Generator, Discriminator, weights_init = model_classes(torch)
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    if reference is not None:
        copy_weights(reference[0], netG, torch)
        copy_weights(reference[1], netD, torch)
    return netG, netD


def run(torch, reference=None):
    """``STEPS`` alternating updates; per step (errD, errG, D(x), D(G(z)) before, after)."""
    netG, netD = build(torch, reference)
    criterion = torch.nn.BCELoss()
    real_label, fake_label = 1.0, 0.0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    history = []
    for real, noise in data():
        # (1) update D: maximise log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real_cpu = torch.from_numpy(real)
        label = torch.full((real_cpu.size(0),), real_label, dtype=real_cpu.dtype)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        fake = netG(torch.from_numpy(noise))
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        # (2) update G: maximise log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        history.append((errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
    return history


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    reference = None
    if pt is not None:
        pt.manual_seed(999)
        reference = build(pt)
    frameworks = [("eagerad", etorch)] + ([("PyTorch", pt)] if pt is not None else [])
    for name, fw in frameworks:
        for step, values in enumerate(run(fw, reference)):
            print(f"{name} step {step}: Loss_D {values[0]:.5f} Loss_G {values[1]:.5f} "
                  f"D(x) {values[2]:.5f} D(G(z)) {values[3]:.5f} / {values[4]:.5f}")
