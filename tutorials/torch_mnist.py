"""The convolutional classifier of pytorch/examples' ``mnist`` (two 3x3 convolutions,
max-pooling, dropout, ``torch.flatten(x, 1)``, ``log_softmax`` + ``nll_loss``,
Adadelta with a ``StepLR`` schedule, a test pass counting ``argmax(dim=1,
keepdim=True)`` hits with ``eq``/``view_as``), written once for any ``torch`` module and
run on synthetic 28x28 "digits" through ``TensorDataset`` and ``DataLoader``.

Run: ``python tutorials/torch_mnist.py`` (compares with PyTorch if installed: the
comparison runs without dropout, whose masks come from each framework's own generator)
"""
import numpy as np

from torch_same_weights import copy_weights, real_torch

BATCH, TRAIN, TEST, EPOCHS = 8, 16, 8, 2


def model_class(torch):
    """The ``Net`` class for the framework ``torch``."""
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        """conv -> relu -> conv -> relu -> pool -> dropout -> fc -> relu -> dropout -> fc."""

        def __init__(self, p1=0.25, p2=0.5):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(p1)
            self.dropout2 = nn.Dropout(p2)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = self.dropout2(x)
            return F.log_softmax(self.fc2(x), dim=1)

    return Net


def digits(count, seed):
    """(images, labels): noisy bright squares whose position is the label."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count)
    images = rng.normal(0.0, 0.3, (count, 1, 28, 28)).astype(np.float32)
    for img, label in zip(images, labels):
        r, c = divmod(int(label), 5)
        img[0, 4 + 12 * r:12 + 12 * r, 2 + 5 * c:6 + 5 * c] += 2.0
    return images, labels.astype(np.int64)


def train(torch, model, loader, optimizer, losses):
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())


def test(torch, model, loader):
    """(average loss, correct count) over the test set."""
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            test_loss += torch.nn.functional.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return test_loss / len(loader.dataset), correct


def run(torch, reference=None, dropout=True):
    """``EPOCHS`` epochs of training and testing; (train losses, test results)."""
    def loader(count, seed):
        images, labels = digits(count, seed)
        dataset = torch.utils.data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
        return torch.utils.data.DataLoader(dataset, batch_size=BATCH)
    model = model_class(torch)(*(() if dropout else (0.0, 0.0)))
    if reference is not None:
        copy_weights(reference, model, torch)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    train_loader, test_loader = loader(TRAIN, 0), loader(TEST, 1)
    losses, results = [], []
    for _ in range(EPOCHS):
        train(torch, model, train_loader, optimizer, losses)
        results.append(test(torch, model, test_loader))
        scheduler.step()
    return losses, results


if __name__ == "__main__":
    import eagerad.torch as etorch
    etorch.manual_seed(1)
    losses, results = run(etorch)
    print("eagerad, as shipped (dropout on):", [f"{v:.4f}" for v in losses])
    for epoch, (loss, correct) in enumerate(results, 1):
        print(f"  epoch {epoch}: test loss {loss:.4f}, accuracy {correct}/{TEST}")
    pt = real_torch()
    if pt is not None:
        pt.manual_seed(1)
        reference = model_class(pt)()
        for name, fw in (("eagerad", etorch), ("PyTorch", pt)):
            losses, results = run(fw, reference, dropout=False)
            print(f"same weights, no dropout, {name}:", [f"{v:.5f}" for v in losses],
                  [f"{v:.5f}/{c}" for v, c in results])
