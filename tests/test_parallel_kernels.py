"""``parallel.kernel``: eagerad's parallel Numba kernels launched from several Python
threads at once do not abort the process under Numba's ``workqueue`` threading layer
(which does, "Concurrent access has been detected", for unguarded launches)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CODE = """if 1:
    import threading
    import numpy as np
    import eagerad
    from eagerad.backend.cpu import activation_kernels, threads
    eagerad.set_num_threads(2)
    x = np.full(1 << 17, 0.5, np.float32)
    a = np.ones((256, 256), np.float32)
    want = activation_kernels.gelu(x, False).copy()
    failures = []

    def work():
        for _ in range(60):
            if not np.array_equal(activation_kernels.gelu(x, False), want):
                failures.append("gelu")
            product = threads.matmul(a, a)
            if product is not None and not (product == 256).all():
                failures.append("matmul")
    workers = [threading.Thread(target=work) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    import numba
    print(numba.threading_layer(), len(failures))
"""


def test_concurrent_parallel_kernels_under_the_workqueue_layer():
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue", PYTHONPATH=ROOT)
    env.pop("NUMBA_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["workqueue", "0"]
