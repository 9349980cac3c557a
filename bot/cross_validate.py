"""`rasa test nlu --cross-validation` with its folds fixed, so `make nlu-report` gives the
same figures on every run of the same data. Rasa draws the folds with an unseeded
StratifiedKFold (numpy's global generator); seeding that generator first fixes them.
Runs in Rasa's environment:

    .venv/bin/python -m bot.launch cross-validate SEED OUT   (make nlu-report)
"""

import sys

import numpy as np
from rasa.__main__ import main

if __name__ == "__main__":
    np.random.seed(int(sys.argv[1]))
    sys.argv = ["rasa", "test", "nlu", "--cross-validation", *sys.argv[2:]]
    main()
