"""Collection order for the parallel run: the longest test files first.

`make test` runs each file in one worker (pytest-xdist, --dist loadfile, --no-loadscope-reorder:
files are handed out in collection order). Started last, a long file ends the run alone while
the other core idles; started first, the short files fill in around it. The list is only a
schedule (measured with `pytest -n 0 --durations=0`, each file's total, slowest first): a file
missing from it runs after these, and no test depends on the order.
"""

LONGEST_FIRST = (
    "test_train_standard_student.py",   # ~60 s: the student pipeline (and its 2-ply round) as subprocesses
    "test_train_standard_ensemble.py",  # ~39 s: the ensemble pipeline as subprocesses
    "test_movegen_compiled.py",         # ~31 s: compiled against NumPy move generation
    "test_ray_executor.py",             # ~20 s: a Ray instance and its actors
    "test_run_safety.py",               # ~20 s
    "test_search.py",                   # ~15 s
    "test_train.py",                    # ~14 s
    "test_features_expert.py",          # ~13 s
    "test_examples.py",                 # ~13 s
    "test_train_init.py",               # ~12 s
    "test_gnubg_program.py",            # ~11 s
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))   # stable: order within a file kept
