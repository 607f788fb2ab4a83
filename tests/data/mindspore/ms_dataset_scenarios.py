"""Deterministic dataset pipelines and image transforms, written once against the
``mindspore.dataset`` API and run under both MindSpore (record_dataset.py) and
``eagerad.dataset`` (tests/test_dataset.py).  Only numpy besides the module passed in."""
import numpy as np


def _image(shape, dtype, seed):
    values = np.random.RandomState(seed).uniform(0, 255, size=shape)
    return values.astype(dtype)


def _rows(dataset):
    return {"columns": dataset.get_col_names(), "size": dataset.get_dataset_size(),
            "rows": [list(r) for r in dataset.create_tuple_iterator(output_numpy=True)]}


def pipelines(ds, vision, transforms, mstype):
    """name -> {'columns', 'size', 'rows'} for pipelines with no randomness."""
    abc = lambda: ds.NumpySlicesDataset({"a": [1, 2], "b": [3, 4], "c": [5, 6]}, shuffle=False)
    seq = lambda n=5: ds.NumpySlicesDataset(list(range(n)), shuffle=False)

    def gen():
        for i in range(3):
            yield np.array([i, i]), np.array(i * 1.5)

    class Source:
        def __getitem__(self, i):
            return np.array(i), np.array([i, -i], np.float32)

        def __len__(self):
            return 5

    out = {
        "list": ds.NumpySlicesDataset([1, 2, 3], shuffle=False),
        "tuple": ds.NumpySlicesDataset(([1, 2], [3.5, 4.5]), shuffle=False),
        "ndarray": ds.NumpySlicesDataset(np.arange(6).reshape(3, 2), shuffle=False),
        "dict": ds.NumpySlicesDataset({"x": [1, 2], "y": [3.0, 4.0]}, shuffle=False),
        "names": ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["p", "q"], shuffle=False),
        "shard_1_of_3": ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_shards=3, shard_id=1),
        "shard_0_of_4": ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_shards=4, shard_id=0),
        "num_samples": ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_samples=4),
        "samples_and_shard": ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_samples=2,
                                                   num_shards=3, shard_id=2),
        "map_default_column": abc().map(lambda x: x * 2),
        "map_in_place": abc().map(lambda x: x + 100, input_columns=["b"]),
        "map_rename": abc().map(lambda x: x, input_columns=["b"], output_columns=["z"]),
        "map_one_to_two": abc().map(lambda x: (x, x * 10), input_columns=["b"], output_columns=["b1", "b2"]),
        "map_two_to_one": abc().map(lambda x, y: x + y, input_columns=["a", "c"], output_columns=["s"]),
        "map_two_to_two": abc().map(lambda x, y: (y, x), input_columns=["c", "a"], output_columns=["x", "y"]),
        "map_swap_same_names": abc().map(lambda x, y: (y, x), input_columns=["c", "a"]),
        "map_list": abc().map([lambda x: x + 1, lambda x: x * 2], input_columns="b"),
        "project": abc().project(["c", "a"]),
        "rename": abc().rename(["a", "c"], ["A", "C"]),
        "batch": seq().batch(2),
        "batch_drop": seq().batch(2, drop_remainder=True),
        "batch_then_repeat": seq().batch(2, drop_remainder=True).repeat(2),
        "repeat_then_batch": seq().repeat(2).batch(3),
        "take": seq().take(3),
        "skip": seq().skip(3),
        "batch_arrays": ds.NumpySlicesDataset({"img": np.arange(12.0).reshape(3, 2, 2),
                                               "lab": np.array([1, 0, 1], np.int32)},
                                              shuffle=False).batch(2),
        "generator": ds.GeneratorDataset(gen, ["x", "y"]),
        "generator_batch": ds.GeneratorDataset(gen, ["x", "y"]).batch(2),
        "generator_ints": ds.GeneratorDataset(lambda: ((i,) for i in range(3)), ["x"]),
        "generator_list": ds.GeneratorDataset([(1.5,), (2.5,)], ["x"], shuffle=False),
        "random_access": ds.GeneratorDataset(Source(), ["i", "v"], shuffle=False),
        "random_access_shard": ds.GeneratorDataset(Source(), ["i", "v"], shuffle=False,
                                                   num_shards=2, shard_id=1),
        "random_access_samples": ds.GeneratorDataset(Source(), ["i", "v"], shuffle=False,
                                                     num_samples=3),
    }
    # MindSpore's quick start pipeline, on synthetic 28x28 grey images
    mnist = ds.NumpySlicesDataset({"image": _image((6, 28, 28, 1), np.uint8, 5),
                                   "label": np.array([3, 1, 4, 1, 5, 9], np.uint32)}, shuffle=False)
    mnist = mnist.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                       vision.HWC2CHW()], "image")
    out["quickstart"] = mnist.map(transforms.TypeCast(mstype.int32), "label").batch(4)
    return {name: _rows(d) for name, d in out.items()}


def image_transforms(vision, transforms, mstype):
    """name -> output array of one transform applied to a fixed image."""
    u8 = _image((4, 6, 3), np.uint8, 1)
    f32 = _image((4, 6, 3), np.float32, 2)
    gray = _image((5, 3), np.float32, 3)
    odd = _image((7, 5, 3), np.uint8, 4)
    digit = _image((28, 28, 1), np.uint8, 5)
    return {
        "rescale_u8": vision.Rescale(1.0 / 255.0, -0.5)(u8),
        "rescale_f32": vision.Rescale(0.5, 2.0)(f32),
        "normalize_hwc": vision.Normalize([120.0, 110.0, 100.0], [60.0, 50.0, 40.0])(u8),
        "normalize_chw": vision.Normalize([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], is_hwc=False)(
            vision.HWC2CHW()(f32)),
        "hwc2chw": vision.HWC2CHW()(u8),
        "totensor": vision.ToTensor()(u8),
        "resize_up_bilinear_f32": vision.Resize((7, 9))(f32),
        "resize_down_bilinear_f32": vision.Resize((3, 4))(f32),
        "resize_up_bilinear_u8": vision.Resize((7, 9))(u8),
        "resize_down_bilinear_u8": vision.Resize((3, 4))(u8),
        "resize_half_bilinear_u8": vision.Resize((2, 3))(u8),
        "resize_up_nearest_u8": vision.Resize((7, 9), vision.Inter.NEAREST)(u8),
        "resize_down_nearest_f32": vision.Resize((3, 4), vision.Inter.NEAREST)(f32),
        "resize_short_side": vision.Resize(5)(odd),
        "resize_short_side_wide": vision.Resize(3)(u8),
        "resize_gray": vision.Resize((8, 4))(gray),
        # LeNet's 28 -> 32: the border rows read past the image (OpenCV keeps their weight)
        "resize_mnist_to_lenet_u8": vision.Resize((32, 32), vision.Inter.LINEAR)(digit),
        # LeNet's two rescales: each rounds once to float32 (a fused multiply-add)
        "rescale_twice_lenet": vision.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081)(
            vision.Rescale(1.0 / 255.0, 0.0)(digit)),
        "center_crop_odd": vision.CenterCrop((4, 2))(odd),
        "center_crop_even": vision.CenterCrop(2)(u8),
        "flip_always": vision.RandomHorizontalFlip(1.0)(u8),
        "flip_never": vision.RandomHorizontalFlip(0.0)(u8),
        "vflip_always": vision.RandomVerticalFlip(1.0)(u8),
        "crop_full": vision.RandomCrop((4, 6))(u8),
        "typecast_float16": transforms.TypeCast(mstype.float16)(np.array([1, 2, 3])),
        "typecast_int32": transforms.TypeCast(mstype.int32)(np.array([1.7, -2.2, 3.5])),
        "onehot_int64": transforms.OneHot(4)(np.array(2)),
        "onehot_int32_batch": transforms.OneHot(3)(np.array([0, 2, 1], np.int32)),
        "onehot_smooth": transforms.OneHot(4, 0.2)(np.array(1)),
        "onehot_smooth_int32": transforms.OneHot(4, 0.2)(np.array([3], np.int32)),
        "compose": transforms.Compose([vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()])(u8),
    }


def encode(value):
    array = np.asarray(value)
    return {"dtype": str(array.dtype), "shape": list(array.shape), "v": array.ravel().tolist()}
