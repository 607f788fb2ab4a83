"""Train a small CNN on synthetic bar images, in the PyTorch face and the MindSpore face.

The images are generated here (no download): 12x12 pictures of a horizontal bar, a
vertical bar or a cross, at random positions, brightness and noise.  The network
is Conv2d -> BatchNorm2d -> ReLU -> MaxPool2d, twice, then Dropout and a linear
classifier.  It is trained twice:

- PyTorch style: ``nn.Module`` with ``forward``, ``optim.Adam`` and the
  ``zero_grad() / loss.backward() / step()`` loop;
- MindSpore style: ``nn.Cell`` with ``construct``, MindSpore's layer spellings
  (``pad_mode='same'``, ``has_bias``, ``nn.Dense``), ``value_and_grad`` over the
  optimizer's parameters and ``optimizer(grads)``.

Each prints one progress line per epoch and its test accuracy (> 95 %).  With one
seed both faces build the same initial weights and run the same ops; their numbers part
only because each face's ``Adam`` is its framework's: MindSpore's folds the bias
corrections into the learning rate and adds ``eps`` to the uncorrected ``sqrt(v)``.

Run from the repository root: PYTHONPATH=. python tutorials/cnn_synthetic.py
"""
import sys
import time

import numpy as np

import eagerad.mindspore as ms
import eagerad.torch as torch

CLASSES = ("horizontal", "vertical", "cross")


def bar_images(n, size=12, seed=0):
    """``n`` noisy images (n, 1, size, size) float32 and their labels 0/1/2."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    images = rng.normal(0.0, 0.3, (n, 1, size, size))
    for img, label in zip(images, labels):
        row, col = rng.integers(2, size - 2, 2)
        lo, hi = sorted(rng.integers(0, size, 2))
        hi = max(hi, lo + size // 2)
        brightness = rng.uniform(0.7, 1.3)
        if label in (0, 2):
            img[0, row, lo:hi] += brightness
        if label in (1, 2):
            img[0, lo:hi, col] += brightness
    return images.astype(np.float32), labels


def batches(x, y, batch_size, rng):
    order = rng.permutation(len(x))
    for i in range(0, len(x), batch_size):
        pick = order[i:i + batch_size]
        yield x[pick], y[pick]


def progress(face, epoch, epochs, loss, acc):
    return f"[{face}] epoch {epoch}/{epochs}  loss {loss:.4f}  train acc {acc:6.1%}"


# ------------------------------------------------------------------ PyTorch face

class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(16 * 3 * 3, 3))

    def forward(self, x):
        return self.head(self.features(x))


def accuracy(net, x, y):
    net.eval()
    with torch.no_grad():
        predicted = net(torch.tensor(x)).numpy().argmax(axis=1)
    net.train()
    return float((predicted == y).mean())


def train_pytorch(data, epochs, batch_size=32):
    (x_train, y_train), (x_test, y_test) = data
    torch.manual_seed(0)
    model = TorchNet()
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(1)
    model.train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for images, labels in batches(x_train, y_train, batch_size, rng):
            optimizer.zero_grad()
            loss = criterion(model(torch.tensor(images)), torch.tensor(labels))
            loss.backward()
            optimizer.step()
            total += loss.item() * len(images)
        print(progress("pytorch", epoch, epochs, total / len(x_train),
                       accuracy(model, x_train, y_train)))
    return accuracy(model, x_test, y_test)

# ---------------------------------------------------------------- MindSpore face


class MindSporeNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        nn = ms.nn
        self.features = nn.SequentialCell(
            nn.Conv2d(1, 8, 3, pad_mode="same", has_bias=True), nn.BatchNorm2d(8, momentum=0.9),
            nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="valid"),
            nn.Conv2d(8, 16, 3, pad_mode="same", has_bias=True), nn.BatchNorm2d(16, momentum=0.9),
            nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="valid"))
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(0.75)
        self.dense = nn.Dense(16 * 3 * 3, 3)

    def construct(self, x):
        return self.dense(self.dropout(self.flatten(self.features(x))))


def accuracy_mindspore(net, x, y):
    net.set_train(False)
    predicted = net(ms.Tensor(x)).asnumpy().argmax(axis=1)
    net.set_train()
    return float((predicted == y).mean())


def train_mindspore(data, epochs, batch_size=32):
    (x_train, y_train), (x_test, y_test) = data
    ms.set_seed(0)
    net = MindSporeNet()
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = ms.nn.Adam(net.trainable_params(), learning_rate=0.01)

    def forward_fn(images, labels):
        return loss_fn(net(images), labels)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    rng = np.random.default_rng(1)
    net.set_train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for images, labels in batches(x_train, y_train, batch_size, rng):
            loss, grads = grad_fn(ms.Tensor(images), ms.Tensor(labels))
            optimizer(grads)
            total += float(loss.asnumpy()) * len(images)
        print(progress("mindspore", epoch, epochs, total / len(x_train),
                       accuracy_mindspore(net, x_train, y_train)))
    return accuracy_mindspore(net, x_test, y_test)


def main(epochs=10, n_train=2000, n_test=500):
    start = time.perf_counter()
    data = bar_images(n_train, seed=0), bar_images(n_test, seed=1)
    results = {}
    for face, train in (("pytorch", train_pytorch), ("mindspore", train_mindspore)):
        results[face] = train(data, epochs)
        print(f"[{face}] test accuracy: {results[face]:.1%}  "
              f"({time.perf_counter() - start:.1f} s so far)")
    print(f"test accuracies differ by {abs(results['pytorch'] - results['mindspore']):.1%} "
          f"(the two frameworks' Adam rules)")
    return min(results.values())


if __name__ == "__main__":
    sys.exit(0 if main() > 0.95 else 1)
