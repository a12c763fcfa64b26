"""Export of trained nets and the tools that use them: `abak-rl export` (exporters.py: ONNX,
safetensors, TorchScript + a JSON model card), `abak-rl hint` (hint.py), `abak-rl play`
(play.py), command lines in cli.py. Torch-free inference is abak_rl.inference. Nothing is
imported here, so `import abak_rl.export.cli` does not pull in PyTorch (docs/export.md)."""
