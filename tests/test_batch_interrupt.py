"""Ctrl-C during `ecoscore batch`: it stops at once, its workers with it, exits 130 saying so in
the player's language, and leaves a results file that --resume finishes. It hung after
"interrupted" until its workers were killed, or ended in a SIGSEGV (a user's run)."""
import os
import subprocess
import sys
import textwrap

from conftest import needs_models

pytestmark = [needs_models]


JOB = textwrap.dedent(
    """
    import gc, os, signal, sys
    from ecoscore.vision.deckstore import open_reader
    open_reader()  # opened and dropped, as `ecoscore batch` checks the models before its workers start
    gc.collect()
    try:
        os.kill(os.getpid(), signal.SIGINT)
        signal.pause()
    except KeyboardInterrupt:
        sys.exit(130)
    """
)


def test_ctrl_c_after_a_reader_is_dropped_is_a_keyboard_interrupt_not_a_crash(tmp_path):
    # Each OpenVINO core's CPU plugin set the thread an alternate signal stack, and a core dropped
    # put back one another had unmapped: Python's SIGINT handler runs on it (SA_ONSTACK), so the
    # next Ctrl-C was a SIGSEGV, every time.
    r = subprocess.run([sys.executable, "-c", JOB], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, ECOSCORE_DATA=str(tmp_path)))
    assert r.returncode == 130, (r.returncode, r.stderr[-2000:])
