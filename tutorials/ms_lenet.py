"""MindSpore's LeNet-5 on MNIST (the classic "Quick Start for Beginners" program) with
eagerad's MindSpore face: ``Model.train`` with callbacks, then ``Model.eval``.

The tutorial's program, changed only where it must be: the import lines name
``eagerad.mindspore``, and ``MnistDataset`` becomes synthetic MNIST-shaped data
(``ms_quick_start.synthetic_mnist``'s noisy class templates, 28x28x1 uint8).  The
pipeline is the tutorial's ``create_dataset`` (``Resize`` to 32x32 with ``Inter.LINEAR``,
two ``Rescale``s, ``HWC2CHW``, ``TypeCast``, ``shuffle``, ``batch`` with
``drop_remainder``, ``repeat``); the network LeNet5 (``Conv2d(pad_mode='valid')``,
``MaxPool2d``, ``Dense`` with ``Normal(0.02)``); the loss
``SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')``, the optimizer
``Momentum(0.01, 0.9)``; ``Model(..., metrics={"Accuracy": Accuracy()})`` trains with
``ModelCheckpoint``, ``LossMonitor`` and a callback of our own that keeps every step's
loss, and evaluates.

``tests/test_mindspore_programs.py`` trains it from the same initial weights here and
under real MindSpore (``tests/data/mindspore/record_programs.py`` runs this very file
with the import lines pointed at ``mindspore``); the per-step losses agree to float32
round-off.

Run: ``PYTHONPATH=. python tutorials/ms_lenet.py``
"""
import os
import tempfile

import numpy as np

import eagerad.mindspore as mindspore
import eagerad.mindspore.dataset as ds
import eagerad.mindspore.dataset.transforms as C
import eagerad.mindspore.dataset.vision as CV
from eagerad.mindspore import dtype as mstype
from eagerad.mindspore import nn
from eagerad.mindspore.common.initializer import Normal
from eagerad.mindspore.dataset.vision import Inter
from eagerad.mindspore.train import (Accuracy, Callback, CheckpointConfig, LossMonitor, Model,
                                     ModelCheckpoint)

from ms_quick_start import synthetic_mnist


def create_dataset(count, seed, batch_size=32, repeat_size=1, num_parallel_workers=1,
                   shuffle=True):
    """The tutorial's create_dataset over ``count`` synthetic images; ``shuffle=False``
    leaves out the shuffle so that two frameworks see the same batches."""
    images, labels = synthetic_mnist(count, seed)
    mnist_ds = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)

    resize_height, resize_width = 32, 32
    rescale = 1.0 / 255.0
    shift = 0.0
    rescale_nml = 1 / 0.3081
    shift_nml = -1 * 0.1307 / 0.3081

    # define map operations
    resize_op = CV.Resize((resize_height, resize_width), interpolation=Inter.LINEAR)
    rescale_nml_op = CV.Rescale(rescale_nml, shift_nml)
    rescale_op = CV.Rescale(rescale, shift)
    hwc2chw_op = CV.HWC2CHW()
    type_cast_op = C.TypeCast(mstype.int32)

    # apply map operations on images
    mnist_ds = mnist_ds.map(operations=type_cast_op, input_columns="label",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=[resize_op, rescale_op, rescale_nml_op, hwc2chw_op],
                            input_columns="image", num_parallel_workers=num_parallel_workers)

    # apply DatasetOps
    if shuffle:
        buffer_size = 10000
        mnist_ds = mnist_ds.shuffle(buffer_size=buffer_size)
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=True)
    mnist_ds = mnist_ds.repeat(repeat_size)
    return mnist_ds


class LeNet5(nn.Cell):
    """Lenet network structure."""

    def __init__(self, num_class=10, num_channel=1):
        super(LeNet5, self).__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class StepLossRecorder(Callback):
    """Keeps every training step's loss (``cb_params.net_outputs``) and prints each
    epoch's mean loss."""

    def __init__(self):
        super().__init__()
        self.losses, self._epoch_losses = [], []

    def on_train_epoch_begin(self, run_context):
        self._epoch_losses = []

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        loss = float(cb_params.net_outputs.asnumpy())
        self.losses.append(loss)
        self._epoch_losses.append(loss)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        mean = sum(self._epoch_losses) / len(self._epoch_losses)
        print(f"epoch {cb_params.cur_epoch_num}: mean loss {mean:.6f} over "
              f"{len(self._epoch_losses)} steps")


def train_net(model, epoch_size, ds_train, ckpoint_cb, per_print=10):
    """Define the training method; returns every step's loss."""
    print("============== Starting Training ==============")
    recorder = StepLossRecorder()
    model.train(epoch_size, ds_train, callbacks=[ckpoint_cb, LossMonitor(per_print), recorder],
                dataset_sink_mode=False)
    return recorder.losses


def test_net(model, ds_eval):
    """Define the evaluation method; returns the metrics."""
    print("============== Starting Testing ==============")
    acc = model.eval(ds_eval, dataset_sink_mode=False)
    print("============== Accuracy:{} ==============".format(acc))
    return acc


def run(directory, net=None, epoch_size=2, train_count=512, eval_count=256, shuffle=False):
    """The tutorial, checkpoints written to ``directory``: ``(per-step losses, eval metrics,
    the newest checkpoint file)``; ``net`` defaults to a fresh ``LeNet5()``."""
    net = LeNet5() if net is None else net
    net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    net_opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    config_ck = CheckpointConfig(save_checkpoint_steps=8, keep_checkpoint_max=3)
    ckpoint = ModelCheckpoint(prefix="checkpoint_lenet", config=config_ck,
                              directory=directory)
    model = Model(net, net_loss, net_opt, metrics={"Accuracy": Accuracy()})

    ds_train = create_dataset(train_count, seed=1, shuffle=shuffle)
    ds_eval = create_dataset(eval_count, seed=2, shuffle=False)
    losses = train_net(model, epoch_size, ds_train, ckpoint)
    acc = test_net(model, ds_eval)
    print("checkpoints:", sorted(os.listdir(os.path.dirname(ckpoint.latest_ckpt_file_name))))
    return losses, acc, ckpoint.latest_ckpt_file_name


if __name__ == "__main__":
    mindspore.set_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        losses, acc, latest = run(folder, shuffle=True)
        # the newest checkpoint loads into a fresh LeNet5, which then predicts
        fresh = LeNet5()
        not_loaded, _ = mindspore.load_param_into_net(fresh, mindspore.load_checkpoint(latest))
    print("parameters not loaded:", not_loaded)
    data, label = next(create_dataset(64, seed=3, shuffle=False).create_tuple_iterator())
    predicted = fresh(data).argmax(1)
    print(f"first losses {np.round(losses[:3], 4)}, last {np.round(losses[-3:], 4)}")
    print(f'Predicted: "{predicted[:10]}", Actual: "{label[:10]}"')
