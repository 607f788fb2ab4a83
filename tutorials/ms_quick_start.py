"""MindSpore's "Quick Start" (beginner tutorial, MindSpore 2.x) with eagerad's MindSpore face.

The tutorial's program, changed only where it must be: the import lines name
``eagerad.mindspore``, and the MNIST files become synthetic MNIST-shaped data (28x28x1
uint8 images, uint32 labels, drawn with numpy from a fixed seed; each class is a noisy
copy of its own template, so the network has something to learn).  The pipeline is the
tutorial's (``map`` of ``vision.Rescale``/``Normalize``/``HWC2CHW`` and
``transforms.TypeCast``, ``batch``), the network its ``Flatten`` + ``SequentialCell`` of
``Dense``/``ReLU`` layers, trained by ``value_and_grad`` + ``SGD`` and tested for accuracy
and average loss; then the checkpoint is saved and loaded into a fresh network.

``tests/test_mindspore_programs.py`` runs these functions from the same initial weights
here and under real MindSpore (``tests/data/mindspore/record_programs.py``, which runs
this very file with the import lines pointed at ``mindspore``); the per-step losses agree
to float32 round-off.

Run: ``PYTHONPATH=. python tutorials/ms_quick_start.py``
"""
import os
import tempfile

import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import nn
from eagerad.mindspore.dataset import GeneratorDataset, NumpySlicesDataset
from eagerad.mindspore.dataset import transforms, vision

PRINT_EVERY = 5


def synthetic_mnist(count, seed, side=28):
    """``count`` MNIST-shaped rows: uint8 images (count, side, side, 1) and uint32 labels.

    The ten class templates come from one fixed seed (shared by every split); ``seed``
    draws the labels and the noise."""
    templates = np.random.default_rng(2024).random((10, side, side, 1))
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count).astype(np.uint32)
    noise = rng.random((count, side, side, 1))
    images = (255 * (0.55 * templates[labels] + 0.45 * noise)).astype(np.uint8)
    return images, labels


class SyntheticMnist:
    """A random-access source for ``GeneratorDataset`` (what ``MnistDataset`` reads)."""

    def __init__(self, count, seed):
        self.images, self.labels = synthetic_mnist(count, seed)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


def datasets(train_count=640, test_count=256, shuffle=False):
    """The tutorial's train and test datasets (``image``, ``label`` columns).  The
    tutorial's MnistDataset shuffles the training set; ``shuffle=False`` keeps the file
    order so that two frameworks see the same batches."""
    train_dataset = GeneratorDataset(SyntheticMnist(train_count, seed=1), ["image", "label"],
                                     shuffle=shuffle)
    images, labels = synthetic_mnist(test_count, seed=2)
    test_dataset = NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    return train_dataset, test_dataset


def datapipe(dataset, batch_size):
    image_transforms = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    label_transform = transforms.TypeCast(mindspore.int32)

    dataset = dataset.map(image_transforms, "image")
    dataset = dataset.map(label_transform, "label")
    dataset = dataset.batch(batch_size)
    return dataset


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10),
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def make_train_step(model, loss_fn, optimizer):
    """The tutorial's forward_fn, grad_fn and train_step for ``model``."""

    # 1. Define forward function
    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    # 2. Get gradient function
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    # 3. Define function of one-step training
    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return train_step


def train(model, dataset, train_step):
    """One epoch; prints every PRINT_EVERY batches and returns every batch's loss."""
    size = dataset.get_dataset_size()
    model.set_train()
    losses = []
    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        loss = train_step(data, label)
        losses.append(float(loss.asnumpy()))
        if batch % PRINT_EVERY == 0:
            loss, current = loss.asnumpy(), batch
            print(f"loss: {loss:>7f}  [{current:>3d}/{size:>3d}]")
    return losses


def test(model, dataset, loss_fn):
    """Prints and returns (accuracy, average loss) over ``dataset``."""
    num_batches = dataset.get_dataset_size()
    model.set_train(False)
    total, test_loss, correct = 0, 0, 0
    for data, label in dataset.create_tuple_iterator():
        pred = model(data)
        total += len(data)
        test_loss += loss_fn(pred, label).asnumpy()
        correct += (pred.argmax(1) == label).asnumpy().sum()
    test_loss /= num_batches
    correct /= total
    print(f"Test: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return float(correct), float(test_loss)


def run(model=None, epochs=3, batch_size=64, shuffle=False):
    """The tutorial from the data to the last test: ``(per-step losses, [(accuracy,
    loss) after each epoch], model)``; ``model`` defaults to a fresh ``Network()``."""
    train_dataset, test_dataset = datasets(shuffle=shuffle)
    print(train_dataset.get_col_names())
    train_dataset = datapipe(train_dataset, batch_size)
    test_dataset = datapipe(test_dataset, batch_size)

    for image, label in test_dataset.create_tuple_iterator():
        print(f"Shape of image [N, C, H, W]: {image.shape} {image.dtype}")
        print(f"Shape of label: {label.shape} {label.dtype}")
        break

    model = Network() if model is None else model
    print(model)

    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), 1e-2)
    train_step = make_train_step(model, loss_fn, optimizer)

    losses, tests = [], []
    for t in range(epochs):
        print(f"Epoch {t + 1}\n-------------------------------")
        losses += train(model, train_dataset, train_step)
        tests.append(test(model, test_dataset, loss_fn))
    print("Done!")
    return losses, tests, model, test_dataset


def save_and_reload(model, test_dataset):
    """The tutorial's last part: save a checkpoint, load it into a fresh Network and
    predict; returns the parameter names that were not loaded."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.ckpt")
        mindspore.save_checkpoint(model, path)
        print("Saved Model to model.ckpt")

        model = Network()
        param_dict = mindspore.load_checkpoint(path)
    param_not_load, _ = mindspore.load_param_into_net(model, param_dict)
    print(param_not_load)

    model.set_train(False)
    for data, label in test_dataset:
        pred = model(data)
        predicted = pred.argmax(1)
        print(f'Predicted: "{predicted[:10]}", Actual: "{label[:10]}"')
        break
    return param_not_load


if __name__ == "__main__":
    mindspore.set_seed(0)
    trained = run(shuffle=True)
    save_and_reload(trained[2], trained[3])
