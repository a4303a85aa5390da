"""Training on emurust's environments: PPO (:mod:`emurust.rl.ppo`), the ``emurust train`` and
``emurust play`` commands (:mod:`emurust.rl.cli`). Needs the ``rl`` extra (torch).

Importing this package asks OpenMP (torch's CPU threads) to let its idle threads sleep
(``OMP_WAIT_POLICY=PASSIVE``) unless the variable is already set: by default they spin at
every barrier, and where another process holds a core the update's threads wait for each
other there (on 2 busy cores the update ran 5 times slower on 2 threads than on 1). It only
takes effect when torch has not been imported yet.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
