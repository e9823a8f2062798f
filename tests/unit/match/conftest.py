import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "dedup"))  # dedup_synth: made-up articles
