"""Ctrl-C and VecGameBoy.step: how late a SIGINT is honoured during a long step, and what
watching costs short steps.

* 64 Starcatch envs, frame_skip 4: env steps/s of steps called from the main thread (where
  a step predicted to take 20 ms or more is watched for signals) against the same steps from
  another thread (never watched), medians of 5 alternating rounds;
* 256 envs x 3,600 frames: a timer thread sends SIGINT 0.5 s into the step; the time from
  the signal to the KeyboardInterrupt, 3 tries, 1 and 2 threads.

    python bench/interrupt.py
"""

from __future__ import annotations

import os
import signal
import statistics
import threading
import time

import numpy as np

import emurust
from emurust.games.starcatch import ROM_PATH


def rate(vec: emurust.VecGameBoy, steps: int, in_thread: bool) -> float:
    acts = np.zeros(vec.num_envs, np.uint8)

    def run() -> None:
        for _ in range(steps):
            vec.step(acts)

    t = time.perf_counter()
    if in_thread:
        th = threading.Thread(target=run)
        th.start()
        th.join()
    else:
        run()
    return steps * vec.num_envs / (time.perf_counter() - t)


def main() -> None:
    for threads in (1, 2):
        vec = emurust.VecGameBoy(ROM_PATH, 64, frame_skip=4, num_threads=threads)
        rate(vec, 100, False)
        main_rates, other = [], []
        for _ in range(5):
            main_rates.append(rate(vec, 400, False))
            other.append(rate(vec, 400, True))
        m, o = statistics.median(main_rates), statistics.median(other)
        print(
            f"{threads} thread(s): main thread {m:.0f}, other thread {o:.0f} env steps/s, "
            f"ratio {m / o:.3f}"
        )
    for threads in (1, 2):
        vec = emurust.VecGameBoy(ROM_PATH, 256, frame_skip=3600, num_threads=threads)
        late = []
        for _ in range(3):
            fired: list[float] = []

            def fire(fired: list[float] = fired) -> None:
                fired.append(time.perf_counter())
                os.kill(os.getpid(), signal.SIGINT)

            timer = threading.Timer(0.5, fire)
            timer.start()
            try:
                vec.step(np.zeros(256, np.uint8))
            except KeyboardInterrupt:
                late.append(time.perf_counter() - fired[0])
            finally:
                timer.cancel()
        ms = ", ".join(f"{x * 1000:.0f}" for x in late)
        print(f"256 envs x 3600 frames, {threads} thread(s): Ctrl-C honoured after {ms} ms")


if __name__ == "__main__":
    main()
