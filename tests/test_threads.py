"""sinpe's thread pool (sinpe.reference.threads): work on its threads behaves as in the caller's thread."""
import subprocess
import sys
import warnings

import numpy as np

import sinpe

TABLE = "import numpy as np, sinpe\nt = np.asarray(sinpe.table('vaswani', d=512, positions=range(2048)), dtype=np.float32)\n"


def test_pool_work_keeps_the_callers_error_state():  # REQ-DETECT-PRECISION, REQ-CHECK-STREAM
    """Red-team regression: NumPy's error state is per thread, so the fingerprint's and the check's workers warned
    where the caller had silenced NumPy (overflow in a cast of a table of 1e300s): under -W error detect and check
    raised RuntimeWarning on a table of 2^20 entries (threaded) and not on a small one (one thread)."""
    t = np.asarray(sinpe.table("vaswani", d=512, positions=range(2048))) * 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sinpe.detect(t).profile is None
        assert sinpe.check(t, profile="vaswani").exit_code == 1


def test_tables_checks_and_detect_run_in_an_atexit_handler():
    """Red-team regression: after the interpreter began to shut down no thread can start; table, check and detect
    raised RuntimeError ("cannot schedule new futures after interpreter shutdown") in an atexit handler. They run
    on the caller's thread there: the same answers."""
    code = TABLE + (
        "import atexit\n"
        "def at_exit():\n"
        "    u = sinpe.table('vaswani', d=1024, positions=range(4096), dtype='float32')\n"
        "    print(sinpe.check(t, profile='vaswani').exit_code, sinpe.detect(t).profile, u.shape)\n"
        "atexit.register(at_exit)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.split() == ["0", "vaswani", "(4096,", "1024)"], r.stderr[-2000:]
