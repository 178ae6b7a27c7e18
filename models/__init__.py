"""The shipped models as package data (``ecoscore.models``): ``*.onnx`` with a ``*.json``
sidecar each, and the model card. Found with ``ecoscore.paths.models_dir()``."""
