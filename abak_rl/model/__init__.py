"""The evaluator network (net.py, PyTorch), the arithmetic on its five outputs (outcomes.py,
NumPy only) and batched scoring of afterstates (scorer.py). Import the submodules directly:
this package imports nothing itself, so torch-free code can use outcomes.py."""
