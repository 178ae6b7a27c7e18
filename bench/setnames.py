"""Report keys for the rendered sets a bench is given."""
from pathlib import Path


def set_name(folder: Path, folders: list[Path]) -> str:
    """The folder's name ("hard"), or "tune/hard" when two sets given share that name."""
    if sum(f.name == folder.name for f in folders) > 1:
        return f"{folder.parent.name}/{folder.name}"
    return folder.name
