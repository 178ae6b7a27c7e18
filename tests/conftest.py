import sys
from pathlib import Path

# Let test modules import the shared helpers (pytest runs with --import-mode=importlib).
sys.path.insert(0, str(Path(__file__).resolve().parent))
