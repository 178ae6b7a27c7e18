"""Close every door through which Ultralytics reaches for the network.

Call ``prepare_ultralytics()`` before the first ``import ultralytics``. Known on 8.4.190:
a DNS check at import (YOLO_OFFLINE), a font download on every dataset check even offline (a
TTF in the config dir), settings written to ~/.config (YOLO_CONFIG_DIR), auto-install of
requirements (YOLO_AUTOINSTALL), event sync (settings ``sync``), and any ``*.pt`` name not on
disk is downloaded (we only build models from ``*.yaml`` and load checkpoints by path).
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ecoscore.paths import data_dir, fonts_dir

FONT = fonts_dir() / "DejaVuSans.ttf"


def prepare_ultralytics() -> Path:
    """Set the environment, drop a font where Ultralytics looks; return its config dir."""
    if "ultralytics" in sys.modules and os.environ.get("YOLO_OFFLINE") != "1":
        raise RuntimeError("prepare_ultralytics() must run before ultralytics is imported")
    config = data_dir() / "ultralytics"
    (config / "Ultralytics").mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"
    os.environ["YOLO_CONFIG_DIR"] = str(config)
    os.environ.setdefault("MPLCONFIGDIR", str(config / "matplotlib"))
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = config / "Ultralytics" / name
        if not target.exists():
            shutil.copyfile(FONT, target)
    return config


def import_ultralytics():
    """Import ultralytics with the doors closed and event sync off; returns the module."""
    prepare_ultralytics()
    import ultralytics
    from ultralytics.utils import SETTINGS

    if SETTINGS.get("sync"):
        SETTINGS.update(sync=False)
    return ultralytics
