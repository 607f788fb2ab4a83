"""Record ms_dataset_scenarios.py under real MindSpore into dataset_answers.json.

    /work/msvenv/bin/python tests/data/mindspore/record_dataset.py
"""
import json
import os
import sys

import mindspore as ms
import mindspore.dataset as ds
from mindspore.dataset import transforms, vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ms_dataset_scenarios import encode, image_transforms, pipelines  # noqa: E402


def main():
    piped = {name: {"columns": p["columns"], "size": p["size"],
                    "rows": [[encode(c) for c in row] for row in p["rows"]]}
             for name, p in pipelines(ds, vision, transforms, ms).items()}
    images = {name: encode(v) for name, v in image_transforms(vision, transforms, ms).items()}
    with open(os.path.join(HERE, "dataset_answers.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "pipelines": piped, "transforms": images}, f,
                  separators=(",", ":"), sort_keys=True)
    print(len(piped), "pipelines,", len(images), "transforms recorded")


if __name__ == "__main__":
    main()
